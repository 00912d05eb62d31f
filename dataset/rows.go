package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"actor/jsonl"
)

// validJSON wraps fn so that a JSONL line that is not valid JSON is
// reported as such before any field of it is read.
func validJSON(fn jsonl.Func) jsonl.Func {
	return func(raw []byte, line int) error {
		if !json.Valid(raw) {
			return errors.New("not a valid JSON value")
		}
		return fn(raw, line)
	}
}

// errorList returns row errors as the plain errors a Set collects.
func errorList(rowErrs []*jsonl.RowError) []error {
	errs := make([]error, len(rowErrs))
	for i, e := range rowErrs {
		errs[i] = e
	}
	return errs
}

// idString reads an identifier given as a JSON string or integer.
func idString(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		return strings.TrimSpace(s), nil
	}
	if _, err := strconv.ParseInt(string(raw), 10, 64); err != nil {
		return "", fmt.Errorf("id %s is neither a string nor an integer", raw)
	}
	return string(raw), nil
}

// lineNumber reads a line number given as a JSON integer or a string
// holding one (CoderEval writes them as strings).
func lineNumber(raw json.RawMessage, field string) (int, error) {
	s, err := idString(raw)
	if err != nil || s == "" {
		return 0, fmt.Errorf("field %s: missing or not a line number", field)
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("field %s: %q is not a line number", field, s)
	}
	return n, nil
}

// missing returns an error naming the first empty field of pairs (name,
// value, name, value...).
func missing(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if strings.TrimSpace(pairs[i+1]) == "" {
			return fmt.Errorf("missing field %s", pairs[i])
		}
	}
	return nil
}
