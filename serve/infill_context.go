package serve

import (
	"path/filepath"
	"slices"
	"strings"

	"actor/infill"
)

// cursorFile finds the served repository and file of an /infill request:
// the file it names (a path in a repository or an absolute path inside
// one), else the file whose lines the editor's text around the cursor
// holds, of all the repositories' files the one most lines vote for (a
// tie between repositories finds none: lines common to many languages,
// `return false;`, `} else {`, vote in every repository). ok is false when
// none is found.
func (s *Server) cursorFile(j *infillJob) (rp *repo, cur infill.Cursor, ok bool) {
	// the suffix's first newline ends the cursor's line
	cur = infill.Cursor{Prefix: j.input.Prefix, Suffix: j.input.Suffix, Above: strings.Count(j.input.Prefix, "\n"),
		Below: max(0, strings.Count(j.input.Suffix, "\n")-1)}
	var best infill.Match
	tie := false
	for _, name := range s.repos.names {
		r, _ := s.repos.get(name)
		c := r.cursorRepository(s)
		if j.filename != "" {
			if path, found := r.relative(j.filename); found {
				cur.Path, cur.Line = path, c.Files.Line(path, j.input.Prefix, j.input.Suffix)
				return r, cur, true
			}
			continue
		}
		m, found := c.Files.Find(j.input.Prefix, j.input.Suffix)
		switch {
		case !found || m.Votes < best.Votes:
		case m.Votes == best.Votes:
			tie = true
		default:
			rp, best, tie = r, m, false
		}
	}
	if rp == nil || tie {
		return nil, cur, false
	}
	cur.Path, cur.Line = best.Path, best.Line
	return rp, cur, true
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

// cursorContext is what a completion's prompt at the cursor is made of:
// the editor's text and chunks (their paths made relative to the
// repository where they lie in it), and the served repository's file at
// the cursor, when found.
type cursorContext struct {
	in     infill.Input
	editor []infill.Chunk
	rp     *repo
	cur    infill.Cursor
	found  bool
	// shown are the repository's chunks of the prompt.
	shown []infill.Chunk
}

// infillPrompt lays out the job's prompt: with repository context, the
// repository's name, the cursor's file, the editor's chunks and the
// repository's chunks; without, llama.cpp's prompt. cc is nil without
// repository context.
func (s *Server) infillPrompt(j *infillJob) (infill.Prompt, *cursorContext, error) {
	if !j.context {
		p, err := s.plainPrompt(j)
		return p, nil, err
	}
	cc := &cursorContext{in: j.input, editor: slices.Clone(j.chunks)}
	var found bool
	cc.rp, cc.cur, found = s.cursorFile(j)
	if !found && len(s.repos.names) > 0 {
		cc.rp, _ = s.repos.get(s.repos.names[0])
	}
	if cc.rp != nil {
		cc.in.Repo = cc.rp.Name
		for i, c := range cc.editor {
			if rel, ok := cc.rp.relative(c.Path); ok {
				cc.editor[i].Path = rel
			}
		}
	}
	if found {
		cc.found, cc.in.Path = true, cc.cur.Path
		cc.cur = cc.cur.Shown(s.p.Tok, j.input.Middle, s.infillBudget())
		var err error
		if cc.shown, err = cc.rp.cursorRepository(s).Context(s.p.Tok, cc.cur, s.cfg.Context); err != nil {
			return infill.Prompt{}, nil, err
		}
	}
	p, err := s.layoutCursor(cc, cc.shown)
	return p, cc, err
}

// plainPrompt is llama.cpp's prompt of the job: the editor's text and
// chunks, without the repository's context.
func (s *Server) plainPrompt(j *infillJob) (infill.Prompt, error) {
	return infill.Layout(s.p.Tok, j.input, j.chunks, s.infillBudget())
}

// layoutCursor lays out cc's prompt with the repository's chunks more.
func (s *Server) layoutCursor(cc *cursorContext, more []infill.Chunk) (infill.Prompt, error) {
	return infill.Layout(s.p.Tok, cc.in, append(slices.Clone(cc.editor), more...), s.infillBudget())
}

// infillBudget is the prompt's budget of a completion at the cursor.
func (s *Server) infillBudget() infill.Budget {
	return infill.BatchBudget(infillBatch, s.capacity, defaultPredict)
}

// cursorRepository is the repository as completions at the cursor read it
// now (it is replaced when the repository is read again).
func (r *repo) cursorRepository(s *Server) *infill.Repository {
	s.repos.mu.RLock()
	defer s.repos.mu.RUnlock()
	return r.cursor
}
