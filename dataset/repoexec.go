package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"actor/pysrc"
)

// repoExecRow is the union of the RepoExec row formats: the Hugging Face
// export (id, solution, check, target_function_prompt, ...), the
// data_with_test_case rows (problem_ids, focal_function, code, test), which
// the development subset extends with task_id, and ACToR's task files
// (_id, name, ground_truth, fpath_tuple, context_start_lineno, lineno,
// file_path; their fields may sit under "metadata").
type repoExecRow struct {
	TaskID               json.RawMessage `json:"task_id"`
	ID                   json.RawMessage `json:"id"`
	ProblemIDs           json.RawMessage `json:"problem_ids"`
	UnderscoreID         json.RawMessage `json:"_id"`
	Project              string          `json:"project"`
	Module               string          `json:"module"`
	EntryPoint           string          `json:"entry_point"`
	Name                 string          `json:"name"`
	FocalFunction        string          `json:"focal_function"`
	Solution             string          `json:"solution"`
	GroundTruth          string          `json:"ground_truth"`
	Code                 string          `json:"code"`
	Prompt               string          `json:"prompt"`
	TargetFunctionPrompt string          `json:"target_function_prompt"`
	Test                 string          `json:"test"`
	Check                string          `json:"check"`
	FilePath             string          `json:"file_path"`
	FPathTuple           []string        `json:"fpath_tuple"`
	ContextStart         *int            `json:"context_start_lineno"`
	Lineno               json.RawMessage `json:"lineno"`
	Metadata             json.RawMessage `json:"metadata"`
}

// parseRepoExec turns one row into a Task. A row needs an id, the
// function's name and where it lives (a module or a file); the test
// program is needed only to evaluate it (the harness says so per task).
func parseRepoExec(raw []byte) (Task, error) {
	var r repoExecRow
	if err := json.Unmarshal(raw, &r); err != nil {
		return Task{}, err
	}
	if m := bytes.TrimSpace(r.Metadata); len(m) > 0 && m[0] == '{' {
		var inner repoExecRow
		if err := json.Unmarshal(m, &inner); err != nil {
			return Task{}, fmt.Errorf("field metadata: %v", err)
		}
		r = r.fill(inner)
	}
	t := Task{
		Benchmark:  RepoExec,
		Project:    strings.Trim(r.Project, "/ "),
		Module:     strings.TrimSpace(r.Module),
		EntryPoint: strings.TrimSpace(first(r.EntryPoint, r.Name)),
		Gold:       first(r.FocalFunction, r.Solution, r.GroundTruth),
		Test:       first(r.Test, r.Check),
		Context:    first(r.Code, r.Prompt),
		Prompt:     r.TargetFunctionPrompt,
		File:       strings.TrimSpace(r.FilePath),
	}
	if t.File == "" && len(r.FPathTuple) > 1 {
		t.File = path.Join(r.FPathTuple[1:]...)
		if t.Project == "" {
			t.Project = r.FPathTuple[0]
		}
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"task_id", r.TaskID}, {"id", r.ID}, {"problem_ids", r.ProblemIDs}, {"_id", r.UnderscoreID}} {
		id, err := idString(f.raw)
		if err != nil {
			return Task{}, errors.New("field " + f.name + ": " + err.Error())
		}
		if id != "" {
			t.ID = id
			break
		}
	}
	pid, err := idString(r.ProblemIDs)
	if err != nil {
		return Task{}, errors.New("field problem_ids: " + err.Error())
	}
	t.ProblemID = pid
	if err := missing("task_id/id/problem_ids/_id", t.ID, "module/file_path/fpath_tuple", t.Module+t.File); err != nil {
		return Task{}, err
	}
	if r.ContextStart != nil {
		if *r.ContextStart < 0 {
			return Task{}, fmt.Errorf("field context_start_lineno: %d is negative", *r.ContextStart)
		}
		t.DefLine = *r.ContextStart + 1
	}
	if len(r.Lineno) > 0 && string(r.Lineno) != "null" {
		n, err := lineNumber(r.Lineno, "lineno")
		if err != nil {
			return Task{}, err
		}
		t.Line = n
	}
	if t.EntryPoint == "" && t.Line == 0 && t.DefLine == 0 {
		return Task{}, errors.New("missing field entry_point/name (or a line: lineno, context_start_lineno)")
	}
	if err := fillPrompt(&t); err != nil {
		return Task{}, err
	}
	return t, nil
}

// fill returns r with its empty fields taken from inner (ACToR keeps a
// task's fields under "metadata").
func (r repoExecRow) fill(inner repoExecRow) repoExecRow {
	raws := []*json.RawMessage{&r.TaskID, &r.ID, &r.ProblemIDs, &r.UnderscoreID, &r.Lineno}
	for i, v := range []json.RawMessage{inner.TaskID, inner.ID, inner.ProblemIDs, inner.UnderscoreID, inner.Lineno} {
		if len(*raws[i]) == 0 {
			*raws[i] = v
		}
	}
	strs := []*string{&r.Project, &r.Module, &r.EntryPoint, &r.Name, &r.FocalFunction, &r.Solution, &r.GroundTruth,
		&r.TargetFunctionPrompt, &r.Test, &r.Check, &r.FilePath}
	for i, v := range []string{inner.Project, inner.Module, inner.EntryPoint, inner.Name, inner.FocalFunction, inner.Solution,
		inner.GroundTruth, inner.TargetFunctionPrompt, inner.Test, inner.Check, inner.FilePath} {
		*strs[i] = first(*strs[i], v)
	}
	if r.FPathTuple == nil {
		r.FPathTuple = inner.FPathTuple
	}
	if r.ContextStart == nil {
		r.ContextStart = inner.ContextStart
	}
	return r
}

// fillPrompt derives the target prompt (signature and docstring, as
// pysrc reads them) from the gold function when the row does not carry it.
func fillPrompt(t *Task) error {
	if t.Prompt != "" || t.Gold == "" || t.EntryPoint == "" {
		return nil // generation then takes the file's own
	}
	f, err := pysrc.Parse([]byte(t.Gold))
	if err != nil {
		return err
	}
	defer f.Close()
	var best *pysrc.Function
	for _, fn := range f.Functions() {
		if fn.Name == t.EntryPoint && (best == nil || indent(fn.Source) <= indent(best.Source)) {
			best = &fn
		}
	}
	if best == nil {
		return errors.New("gold function does not define " + t.EntryPoint)
	}
	t.Prompt = best.Prompt
	return nil
}

// indent is the width of src's leading blanks.
func indent(src string) int { return len(src) - len(strings.TrimLeft(src, " \t")) }

// first returns the first non-blank string.
func first(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}
