// Package task reads benchmark tasks (JSONL, RepoExec- and ACToR-style
// fields) and locates a task's target function in its repository: the file,
// the function's lines, its signature-and-docstring prompt and the lines
// retrieval must hide.
package task

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"

	"actor/jsonrows"
	"actor/pysrc"
	"actor/retrieve"
)

// Task is one benchmark task. Fields missing from the JSON stay empty.
type Task struct {
	ID         string // task_id (or _id, problem_ids)
	Project    string // project, e.g. "test-apps/python-string-utils"
	Module     string // dotted module of the target, e.g. "string_utils.manipulation"
	EntryPoint string // function name (entry_point or name)
	Focal      string // gold function source (focal_function, solution or ground_truth)
	Prompt     string // target_function_prompt, when the benchmark gives it
	FilePath   string // target file relative to the repository (file_path or fpath_tuple[1:])
	// ContextStart is the benchmark's context_start_lineno (0-based line of
	// "def" in ACToR's RepoExec file), -1 when absent.
	ContextStart int
	// Line is a 1-based line inside the target function (lineno), 0 when
	// absent.
	Line int
}

// rawTask lists the JSON field names understood.
type rawTask struct {
	TaskID       json.RawMessage `json:"task_id"`
	UnderscoreID json.RawMessage `json:"_id"`
	ProblemIDs   json.RawMessage `json:"problem_ids"`
	Project      string          `json:"project"`
	Module       string          `json:"module"`
	EntryPoint   string          `json:"entry_point"`
	Name         string          `json:"name"`
	Focal        string          `json:"focal_function"`
	Solution     string          `json:"solution"`
	GroundTruth  string          `json:"ground_truth"`
	Prompt       string          `json:"target_function_prompt"`
	FilePath     string          `json:"file_path"`
	FPathTuple   []string        `json:"fpath_tuple"`
	ContextStart *int            `json:"context_start_lineno"`
	Lineno       json.RawMessage `json:"lineno"`
	Metadata     json.RawMessage `json:"metadata"`
}

// ReadJSONL reads one task per non-empty line. ACToR's files, whose fields
// sit under "metadata", are read too. Errors name the file and line.
func ReadJSONL(file string) ([]Task, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Task
	rowErrs, err := jsonrows.Lines(file, f, true, func(raw []byte, _ int) error {
		t, err := parseTask(raw)
		if err == nil {
			out = append(out, t)
		}
		return err
	})
	if len(rowErrs) > 0 {
		return nil, rowErrs[0]
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return out, nil
}

func parseTask(line []byte) (Task, error) {
	var r rawTask
	if err := json.Unmarshal(line, &r); err != nil {
		return Task{}, fmt.Errorf("not a JSON task: %v", err)
	}
	if len(r.Metadata) > 0 && r.Metadata[0] == '{' {
		var m rawTask
		if err := json.Unmarshal(r.Metadata, &m); err != nil {
			return Task{}, fmt.Errorf("metadata: %v", err)
		}
		r = merge(r, m)
	}
	t := Task{
		Project:      r.Project,
		Module:       r.Module,
		EntryPoint:   first(r.EntryPoint, r.Name),
		Focal:        first(r.Focal, r.Solution, r.GroundTruth),
		Prompt:       r.Prompt,
		FilePath:     r.FilePath,
		ContextStart: -1,
	}
	var err error
	for _, raw := range []json.RawMessage{r.TaskID, r.UnderscoreID, r.ProblemIDs} {
		if t.ID, err = scalar(raw); err != nil {
			return Task{}, fmt.Errorf("task id: %v", err)
		}
		if t.ID != "" {
			break
		}
	}
	if t.FilePath == "" && len(r.FPathTuple) > 1 {
		t.FilePath = path.Join(r.FPathTuple[1:]...)
		if t.Project == "" {
			t.Project = r.FPathTuple[0]
		}
	}
	if r.ContextStart != nil {
		if *r.ContextStart < 0 {
			return Task{}, fmt.Errorf("context_start_lineno %d is negative", *r.ContextStart)
		}
		t.ContextStart = *r.ContextStart
	}
	if s, err := scalar(r.Lineno); err != nil {
		return Task{}, fmt.Errorf("lineno: %v", err)
	} else if s != "" {
		if t.Line, err = strconv.Atoi(s); err != nil || t.Line < 1 {
			return Task{}, fmt.Errorf("lineno %q is not a positive line number", s)
		}
	}
	return t, nil
}

// merge fills r's empty fields from m (ACToR keeps them under metadata).
func merge(r, m rawTask) rawTask {
	if len(r.TaskID) == 0 {
		r.TaskID = m.TaskID
	}
	r.Project = first(r.Project, m.Project)
	r.Module = first(r.Module, m.Module)
	r.EntryPoint = first(r.EntryPoint, m.EntryPoint)
	r.Focal = first(r.Focal, m.Focal)
	r.GroundTruth = first(r.GroundTruth, m.GroundTruth)
	r.Prompt = first(r.Prompt, m.Prompt)
	r.FilePath = first(r.FilePath, m.FilePath)
	if r.FPathTuple == nil {
		r.FPathTuple = m.FPathTuple
	}
	if r.ContextStart == nil {
		r.ContextStart = m.ContextStart
	}
	if len(r.Lineno) == 0 {
		r.Lineno = m.Lineno
	}
	return r
}

func first(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// scalar renders a JSON string or number as a string ("" for absent/null).
func scalar(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", fmt.Errorf("%s is neither a string nor a number", raw)
	}
	return n.String(), nil
}

// Find returns the task whose ID is id.
func Find(tasks []Task, id string) (Task, error) {
	for _, t := range tasks {
		if t.ID == id {
			return t, nil
		}
	}
	return Task{}, fmt.Errorf("no task with id %q", id)
}

// Locate finds the task's function in the repository at repo.
func Locate(repo string, t Task) (retrieve.Target, error) {
	rel, err := targetFile(repo, t)
	if err != nil {
		return retrieve.Target{}, err
	}
	tg, err := retrieve.Locate(repo, rel, func(f *pysrc.File) (pysrc.Function, error) { return pick(f, t) })
	if err != nil {
		return retrieve.Target{}, fmt.Errorf("task %s: %w", t.ID, err)
	}
	tg.ID, tg.Prompt = t.ID, first(t.Prompt, tg.Prompt)
	if t.ContextStart >= 0 {
		// The authors compare a block's 1-based end line with this 0-based
		// number; keep their rule exactly.
		tg.Exclusion.StartLine = t.ContextStart
	}
	return tg, nil
}

// targetFile returns the task's file relative to repo: its file path, or
// its module as pkg/mod.py or pkg/mod/__init__.py.
func targetFile(repo string, t Task) (string, error) {
	if t.FilePath != "" {
		return t.FilePath, nil
	}
	if t.Module == "" {
		return "", fmt.Errorf("task %s names neither a file nor a module", t.ID)
	}
	rel, err := pysrc.ModuleFile(repo, t.Module)
	if err != nil {
		return "", fmt.Errorf("task %s: %w", t.ID, err)
	}
	return rel, nil
}

// pick chooses the task's function among the file's functions: by line when
// given, else by name, preferring the definition whose source is the gold
// function.
func pick(f *pysrc.File, t Task) (pysrc.Function, error) {
	if t.Line > 0 {
		return f.At(t.Line)
	}
	if t.ContextStart >= 0 {
		for _, fn := range f.Functions() {
			if fn.Start == t.ContextStart+1 {
				return fn, nil
			}
		}
	}
	var named []pysrc.Function
	for _, fn := range f.Functions() {
		if fn.Name == t.EntryPoint {
			named = append(named, fn)
		}
	}
	if len(named) == 0 {
		return pysrc.Function{}, fmt.Errorf("no function named %q", t.EntryPoint)
	}
	focal := strings.TrimSpace(t.Focal)
	for _, fn := range named {
		if focal != "" && strings.TrimSpace(dedent(fn.Source)) == focal {
			return fn, nil
		}
	}
	if len(named) == 1 {
		return named[0], nil
	}
	return pysrc.Function{}, fmt.Errorf("%d functions named %q and none matches the gold source", len(named), t.EntryPoint)
}

// dedent removes the first line's indentation from every line (a method's
// source as a top-level function).
func dedent(src string) string {
	indent := src[:len(src)-len(strings.TrimLeft(src, " \t"))]
	if indent == "" {
		return src
	}
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, indent)
	}
	return strings.Join(lines, "\n")
}
