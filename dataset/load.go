package dataset

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"actor/jsonl"
)

// Set is a loaded benchmark: its tasks in file order, the row errors met on
// the way, and the files read.
type Set struct {
	Benchmark string
	Tasks     []Task
	Errors    []error
	Files     []string
}

// Lookup returns the task with id, or nil.
func (s *Set) Lookup(id string) *Task {
	for i := range s.Tasks {
		if s.Tasks[i].ID == id {
			return &s.Tasks[i]
		}
	}
	return nil
}

// Pick returns the task with id, or the set's only task when id is empty.
func (s *Set) Pick(id string) (*Task, error) {
	switch {
	case id != "":
		if t := s.Lookup(id); t != nil {
			return t, nil
		}
		return nil, fmt.Errorf("%s: no task with id %q", strings.Join(s.Files, ", "), id)
	case len(s.Tasks) == 1:
		return &s.Tasks[0], nil
	}
	return nil, fmt.Errorf("%s: %d tasks: name one by its id", strings.Join(s.Files, ", "), len(s.Tasks))
}

// Load reads a benchmark's tasks from path, a file or a folder.
//
// RepoExec: a JSON/JSONL file, or a folder holding tasks.jsonl, else
// pass_data.jsonl files at any depth, else its *.jsonl and *.json files.
// CoderEval: CoderEval4Python.json or a folder holding it; a
// CEPythonRaw.jsonl (else another CEPython*.jsonl) next to it supplies the
// prompts.
func Load(benchmark, path string) (*Set, error) {
	set := &Set{Benchmark: benchmark}
	switch benchmark {
	case RepoExec:
		files, err := repoExecFiles(path)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if err := set.read(f, "", func(raw []byte) (Task, error) { return parseRepoExec(raw) }); err != nil {
				return nil, err
			}
		}
	case CoderEval:
		file, prompts, err := coderEvalFiles(path)
		if err != nil {
			return nil, err
		}
		byID := map[string]Prompt{}
		if prompts != "" {
			ps, errs, err := LoadPrompts(prompts)
			if err != nil {
				return nil, err
			}
			set.Files = append(set.Files, prompts)
			set.Errors = append(set.Errors, errs...)
			for _, p := range ps {
				byID[p.QuestionID] = p
			}
		}
		if err := set.read(file, "RECORDS", func(raw []byte) (Task, error) { return parseCoderEval(raw, byID) }); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown benchmark %q (want %s or %s)", benchmark, RepoExec, CoderEval)
	}
	if len(set.Tasks) == 0 {
		return nil, fmt.Errorf("%s: no valid %s task in %s (%d malformed rows)", path, benchmark, strings.Join(set.Files, ", "), len(set.Errors))
	}
	return set, nil
}

// read adds the tasks of one file, rejecting duplicate ids.
func (s *Set) read(file, key string, parse func([]byte) (Task, error)) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	s.readData(file, data, key, parse)
	return nil
}

// readData adds the tasks of file, whose content is data.
func (s *Set) readData(file string, data []byte, key string, parse func([]byte) (Task, error)) {
	seen := map[string]string{}
	for _, t := range s.Tasks {
		seen[t.ID] = t.Origin
	}
	s.Files = append(s.Files, file)
	rowErrs := jsonl.Data(file, data, key, validJSON(func(raw []byte, line int) error {
		t, err := parse(raw)
		if err != nil {
			return err
		}
		t.Origin = fmt.Sprintf("%s:%d", file, line)
		if prev, dup := seen[t.ID]; dup {
			return fmt.Errorf("duplicate task id %s (first at %s)", t.ID, prev)
		}
		seen[t.ID] = t.Origin
		s.Tasks = append(s.Tasks, t)
		return nil
	}))
	s.Errors = append(s.Errors, errorList(rowErrs)...)
}

// LoadPrompts reads a CoderEval CEPython*.jsonl prompt file.
func LoadPrompts(file string) ([]Prompt, []error, error) {
	var out []Prompt
	rowErrs, err := jsonl.File(file, "", validJSON(func(raw []byte, line int) error {
		p, err := parsePrompt(raw)
		if err == nil {
			out = append(out, p)
		}
		return err
	}))
	return out, errorList(rowErrs), err
}

// repoExecFiles lists the RepoExec task files under path.
func repoExecFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	if f := filepath.Join(path, "tasks.jsonl"); exists(f) {
		return []string{f}, nil
	}
	var pass []string
	err = filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "pass_data.jsonl" {
			pass = append(pass, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(pass) == 0 {
		for _, pat := range []string{"*.jsonl", "*.json"} {
			m, _ := filepath.Glob(filepath.Join(path, pat))
			pass = append(pass, m...)
		}
	}
	if len(pass) == 0 {
		return nil, fmt.Errorf("%s: no RepoExec task file (tasks.jsonl, pass_data.jsonl, *.jsonl, *.json)", path)
	}
	sort.Strings(pass)
	return pass, nil
}

// coderEvalFiles finds CoderEval4Python.json and the prompt file under path.
func coderEvalFiles(path string) (records, prompts string, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", "", err
	}
	dir := path
	if st.IsDir() {
		records = filepath.Join(path, "CoderEval4Python.json")
		if !exists(records) {
			return "", "", fmt.Errorf("%s: no CoderEval4Python.json", path)
		}
	} else {
		records, dir = path, filepath.Dir(path)
	}
	if p := filepath.Join(dir, "CEPythonRaw.jsonl"); exists(p) {
		return records, p, nil
	}
	m, _ := filepath.Glob(filepath.Join(dir, "CEPython*.jsonl"))
	sort.Strings(m)
	if len(m) > 0 {
		prompts = m[0]
	}
	return records, prompts, nil
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
