package dataset

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"
)

// coderEvalRow is one record of CoderEval4Python.json.
type coderEvalRow struct {
	ID          json.RawMessage `json:"_id"`
	Name        string          `json:"name"`
	Project     string          `json:"project"`
	FilePath    string          `json:"file_path"`
	Lineno      json.RawMessage `json:"lineno"`
	EndLineno   json.RawMessage `json:"end_lineno"`
	Code        string          `json:"code"`
	Level       string          `json:"level"`
	FileContent string          `json:"file_content"`
}

// Prompt is one line of a CoderEval CEPython*.jsonl prompt file.
type Prompt struct {
	QuestionID string `json:"question_id"`
	Input      string `json:"input"`
	Signature  string `json:"signature"`
	Docstring  string `json:"docstring"`
}

// parseCoderEval turns one record into a Task; prompts (by _id) supply the
// target prompt when present.
func parseCoderEval(raw []byte, prompts map[string]Prompt) (Task, error) {
	var r coderEvalRow
	if err := json.Unmarshal(raw, &r); err != nil {
		return Task{}, err
	}
	id, err := idString(r.ID)
	if err != nil {
		return Task{}, err
	}
	t := Task{
		Benchmark:  CoderEval,
		ID:         id,
		Project:    strings.Trim(r.Project, "/ "),
		File:       path.Clean(strings.TrimPrefix(strings.TrimSpace(r.FilePath), "/")),
		EntryPoint: strings.TrimSpace(r.Name),
		Gold:       r.Code,
		Level:      r.Level,
		Context:    r.FileContent,
	}
	if err := missing("_id", t.ID, "name", t.EntryPoint, "project", t.Project,
		"file_path", r.FilePath, "code", t.Gold); err != nil {
		return Task{}, err
	}
	if strings.HasPrefix(t.File, "../") || t.File == ".." {
		return Task{}, fmt.Errorf("field file_path: %q leaves the repository", r.FilePath)
	}
	if t.Line, err = lineNumber(r.Lineno, "lineno"); err != nil {
		return Task{}, err
	}
	if t.EndLine, err = lineNumber(r.EndLineno, "end_lineno"); err != nil {
		return Task{}, err
	}
	if t.EndLine < t.Line {
		return Task{}, fmt.Errorf("end_lineno %d before lineno %d", t.EndLine, t.Line)
	}
	if p, ok := prompts[t.ID]; ok {
		t.Prompt = p.Input
	}
	if err := fillPrompt(&t); err != nil {
		return Task{}, err
	}
	return t, nil
}

// parsePrompt reads one CEPython*.jsonl line.
func parsePrompt(raw []byte) (Prompt, error) {
	var p Prompt
	if err := json.Unmarshal(raw, &p); err != nil {
		return Prompt{}, err
	}
	if err := missing("question_id", p.QuestionID, "input", p.Input); err != nil {
		return Prompt{}, err
	}
	return p, nil
}
