package serve

import (
	"path/filepath"
	"strings"

	"actor/infill"
)

// cursorFile finds the served repository and file of an /infill request:
// the file it names (a path in a repository or an absolute path inside
// one), else the file whose lines the editor's text around the cursor
// holds. ok is false when none is found.
func (s *Server) cursorFile(j *infillJob) (rp *repo, cur infill.Cursor, ok bool) {
	cur = infill.Cursor{Prefix: j.input.Prefix, Suffix: j.input.Suffix, Above: strings.Count(j.input.Prefix, "\n"), Below: strings.Count(j.input.Suffix, "\n")}
	for _, name := range s.repos.names {
		r, _ := s.repos.get(name)
		s.repos.mu.RLock()
		c := r.cursor
		s.repos.mu.RUnlock()
		var found bool
		if j.filename != "" {
			if cur.Path, found = r.relative(j.filename); found {
				cur.Line = c.Files.Line(cur.Path, j.input.Prefix, j.input.Suffix)
			}
		} else {
			cur.Path, cur.Line, found = c.Files.Find(j.input.Prefix, j.input.Suffix)
		}
		if found {
			return r, cur, true
		}
	}
	return nil, cur, false
}

// relative returns name as a path of the repository: name itself when it
// is a relative path there, the part inside it of an absolute path.
func (r *repo) relative(name string) (string, bool) {
	if filepath.IsAbs(name) {
		if real, err := filepath.EvalSymlinks(name); err == nil {
			name = real
		}
		rel, err := filepath.Rel(r.root, name)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", false
		}
		name = filepath.ToSlash(rel)
	}
	if _, clean, e := r.file(name); e == nil {
		return clean, true
	}
	return "", false
}

// infillPrompt lays out the job's prompt: with repository context, the
// repository's name, the cursor's file, the editor's chunks (their paths
// made relative to the repository where they lie in it) and the
// repository's chunks; without, llama.cpp's prompt.
func (s *Server) infillPrompt(j *infillJob) (infill.Prompt, error) {
	b := infill.BatchBudget(infillBatch, s.sess.Capacity(), defaultPredict)
	if !j.context {
		return infill.Layout(s.p.Tok, j.input, j.chunks, b)
	}
	in := j.input
	chunks := j.chunks
	rp, cur, found := s.cursorFile(j)
	if !found && len(s.repos.names) > 0 {
		rp, _ = s.repos.get(s.repos.names[0])
	}
	if rp != nil {
		in.Repo = rp.Name
		for i, c := range chunks {
			if rel, ok := rp.relative(c.Path); ok {
				chunks[i].Path = rel
			}
		}
	}
	if found {
		in.Path = cur.Path
		s.repos.mu.RLock()
		c := rp.cursor
		s.repos.mu.RUnlock()
		more, err := c.Context(s.p.Tok, cur, s.cfg.Context)
		if err != nil {
			return infill.Prompt{}, err
		}
		chunks = append(chunks, more...)
	}
	return infill.Layout(s.p.Tok, in, chunks, b)
}
