package trainset

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"actor/jsonl"
)

// repostRow is one line of RepoST-formatted JSONL as the ACToR authors
// publish it (datasets/repost_train_formatted.jsonl): the whole function in
// "prompt", the rest under "metadata". Fields are also accepted at the top
// level.
type repostRow struct {
	Prompt   string      `json:"prompt"`
	Metadata *repostMeta `json:"metadata"`
	repostMeta
}

type repostMeta struct {
	TaskID               string   `json:"task_id"`
	FunctionSignature    string   `json:"function_signature"`
	Docstring            string   `json:"docstring"`
	GroundTruth          string   `json:"ground_truth"`
	TargetFunctionPrompt string   `json:"target_function_prompt"`
	FpathTuple           []string `json:"fpath_tuple"`
	ContextStartLineno   int      `json:"context_start_lineno"`
	LineNo               int      `json:"line_no"`
}

// ErrNoBody marks a function without a body after its docstring.
var ErrNoBody = errors.New("function without a body")

// ReadRepoST reads RepoST-formatted JSONL. The body is the part of
// "prompt" after target_function_prompt when prompt starts with it (the
// authors' ground_truth field has its indentation flattened), else
// ground_truth. Rows that cannot be used (bad JSON, no target prompt, no
// body) are errors when strict, else returned in skipped.
func ReadRepoST(path string, strict bool) (samples []Sample, skipped []*jsonl.RowError, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("dataset %s: %w", path, err)
	}
	defer f.Close()
	seen := map[string]bool{}
	skipped, err = jsonl.Lines(path, f, strict, func(raw []byte, _ int) error {
		s, err := parseRow(raw)
		if err == nil && seen[s.ID] {
			err = fmt.Errorf("task id %q repeated", s.ID)
		}
		if err != nil {
			return err
		}
		seen[s.ID] = true
		samples = append(samples, s)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("dataset %s: %w", path, err)
	}
	if strict && len(skipped) > 0 {
		return nil, nil, skipped[0]
	}
	if len(samples) == 0 {
		return nil, skipped, fmt.Errorf("dataset %s: no usable rows", path)
	}
	return samples, skipped, nil
}

// parseRow turns one JSON line into a sample.
func parseRow(b []byte) (Sample, error) {
	var row repostRow
	if err := json.Unmarshal(b, &row); err != nil {
		return Sample{}, fmt.Errorf("invalid JSON: %w", err)
	}
	m := row.repostMeta
	if row.Metadata != nil {
		m = *row.Metadata
	}
	tfp := m.TargetFunctionPrompt
	if strings.TrimSpace(tfp) == "" {
		return Sample{}, errors.New("no target_function_prompt")
	}
	if m.TaskID == "" {
		return Sample{}, errors.New("no task_id")
	}
	body := m.GroundTruth
	if rest, ok := strings.CutPrefix(row.Prompt, tfp); ok && strings.TrimSpace(rest) != "" {
		body = rest
	}
	body = strings.TrimRight(body, " \t\r\n")
	if strings.TrimSpace(body) == "" {
		return Sample{}, fmt.Errorf("task %s: %w", m.TaskID, ErrNoBody)
	}
	if !strings.HasSuffix(tfp, "\n") {
		tfp += "\n"
	}
	repo, _, _ := strings.Cut(m.TaskID, "/")
	path := ""
	if len(m.FpathTuple) > 0 {
		repo = m.FpathTuple[0]
		path = strings.Join(m.FpathTuple[1:], "/")
	}
	return Sample{
		ID: m.TaskID, Repo: repo, Path: path, Signature: m.FunctionSignature, Docstring: m.Docstring,
		Prompt: tfp, Body: body, StartLine: m.ContextStartLineno, BodyLine: m.LineNo,
	}, nil
}

// WriteRepoST writes samples as RepoST-formatted JSONL (readable by
// ReadRepoST and by the authors' scripts).
func WriteRepoST(w io.Writer, samples []Sample) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, s := range samples {
		fpath := []string{s.Repo}
		if s.Path != "" {
			fpath = append(fpath, strings.Split(s.Path, "/")...)
		}
		row := struct {
			Prompt   string     `json:"prompt"`
			Metadata repostMeta `json:"metadata"`
		}{s.Function(), repostMeta{
			TaskID: s.ID, FunctionSignature: s.Signature, Docstring: s.Docstring, GroundTruth: s.Body,
			TargetFunctionPrompt: s.Prompt, FpathTuple: fpath, ContextStartLineno: s.StartLine, LineNo: s.BodyLine,
		}}
		if err := enc.Encode(row); err != nil {
			return err
		}
	}
	return nil
}
