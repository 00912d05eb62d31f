package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// RowError is a malformed row: its file, 1-based line and the problem.
type RowError struct {
	File string
	Line int
	Err  error
}

// Error formats the problem as "file:line: problem".
func (e *RowError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

// Unwrap returns the problem without its place.
func (e *RowError) Unwrap() error { return e.Err }

// rowFunc handles one JSON row found at line; an error it returns is
// reported as that row's error.
type rowFunc func(raw []byte, line int) error

// eachRow calls fn for every row of path: each non-empty line of a JSONL
// file, or each element of a JSON file's top-level array, or of the array
// under key when the file is one JSON object holding it. Row errors are
// collected; err is set only when the file cannot be read at all.
func eachRow(path, key string, fn rowFunc) (rowErrs []error, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return eachRowData(path, data, key, fn), nil
}

// eachRowData is eachRow on the content data of path.
func eachRowData(path string, data []byte, key string, fn rowFunc) []error {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		return eachElement(path, data, "", fn)
	case key != "" && len(trimmed) > 0 && trimmed[0] == '{' && bytes.Contains(data, []byte(strconv.Quote(key))):
		return eachElement(path, data, key, fn)
	}
	return eachLine(path, data, fn)
}

// eachLine handles a JSONL file.
func eachLine(path string, data []byte, fn rowFunc) []error {
	var errs []error
	r := bufio.NewReader(bytes.NewReader(data))
	for line := 1; ; line++ {
		text, err := r.ReadBytes('\n')
		if t := bytes.TrimSpace(text); len(t) > 0 {
			if !json.Valid(t) {
				errs = append(errs, &RowError{path, line, errors.New("not a valid JSON value")})
			} else if ferr := fn(t, line); ferr != nil {
				errs = append(errs, &RowError{path, line, ferr})
			}
		}
		if err == io.EOF {
			return errs
		}
	}
}

// eachElement handles a JSON file holding an array, at the top level or
// under key of the top-level object. A syntax error ends the walk, as the
// rest of the file cannot be framed.
func eachElement(path string, data []byte, key string, fn rowFunc) []error {
	dec := json.NewDecoder(bytes.NewReader(data))
	fail := func(err error) []error {
		return []error{&RowError{path, lineAt(data, dec.InputOffset()), err}}
	}
	if key != "" {
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			return fail(errors.New("expected a JSON object"))
		}
		for {
			tok, err := dec.Token()
			if err != nil || tok == json.Delim('}') {
				return fail(fmt.Errorf("no %q array", key))
			}
			if tok == key {
				break
			}
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return fail(err)
			}
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return fail(errors.New("expected a JSON array"))
	}
	var errs []error
	for dec.More() {
		start := skipSpace(data, dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return append(errs, &RowError{path, lineAt(data, start), err})
		}
		if err := fn(raw, lineAt(data, start)); err != nil {
			errs = append(errs, &RowError{path, lineAt(data, start), err})
		}
	}
	return errs
}

// skipSpace returns the offset of the first byte at or after off that is
// neither whitespace nor a comma.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n,", data[off]) >= 0 {
		off++
	}
	return off
}

// lineAt returns the 1-based line of byte offset off.
func lineAt(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte{'\n'}) + 1
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
