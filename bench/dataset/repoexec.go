package dataset

import (
	"encoding/json"
	"errors"
	"strings"

	"actor/pysrc"
)

// repoExecRow is the union of the RepoExec row formats: the Hugging Face
// export (id, solution, check, target_function_prompt, ...) and the
// data_with_test_case rows (problem_ids, focal_function, code, test), which
// the development subset extends with task_id.
type repoExecRow struct {
	TaskID               json.RawMessage `json:"task_id"`
	ID                   json.RawMessage `json:"id"`
	ProblemIDs           json.RawMessage `json:"problem_ids"`
	Project              string          `json:"project"`
	Module               string          `json:"module"`
	EntryPoint           string          `json:"entry_point"`
	FocalFunction        string          `json:"focal_function"`
	Solution             string          `json:"solution"`
	Code                 string          `json:"code"`
	Prompt               string          `json:"prompt"`
	TargetFunctionPrompt string          `json:"target_function_prompt"`
	Test                 string          `json:"test"`
	Check                string          `json:"check"`
}

// parseRepoExec turns one row into a Task.
func parseRepoExec(raw []byte) (Task, error) {
	var r repoExecRow
	if err := json.Unmarshal(raw, &r); err != nil {
		return Task{}, err
	}
	t := Task{
		Benchmark:  RepoExec,
		Project:    strings.Trim(r.Project, "/ "),
		Module:     strings.TrimSpace(r.Module),
		EntryPoint: strings.TrimSpace(r.EntryPoint),
		Gold:       first(r.FocalFunction, r.Solution),
		Test:       first(r.Test, r.Check),
		Context:    first(r.Code, r.Prompt),
		Prompt:     r.TargetFunctionPrompt,
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"task_id", r.TaskID}, {"id", r.ID}, {"problem_ids", r.ProblemIDs}} {
		id, err := idString(f.raw)
		if err != nil {
			return Task{}, errors.New("field " + f.name + ": " + err.Error())
		}
		if id != "" {
			t.ID = id
			break
		}
	}
	if err := missing("task_id/id/problem_ids", t.ID, "project", t.Project, "module", t.Module,
		"entry_point", t.EntryPoint, "focal_function/solution", t.Gold, "test/check", t.Test); err != nil {
		return Task{}, err
	}
	if err := fillPrompt(&t); err != nil {
		return Task{}, err
	}
	return t, nil
}

// fillPrompt derives the target prompt (signature and docstring, as
// pysrc reads them) from the gold function when the row does not carry it.
func fillPrompt(t *Task) error {
	if t.Prompt != "" {
		return nil
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
