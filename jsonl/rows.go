package jsonl

// Rows of outside JSON data files (benchmark tasks, training sets): JSON
// Lines, a JSON array, or an array under one key of a JSON object. Each
// row's raw JSON is handed to the caller with its 1-based line and every
// bad row is named "file:line: problem", so that all dataset readers frame
// rows and report problems the same way while each keeps its own parsing
// of the fields.

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

// RowError is a bad row: its file, 1-based line and the problem. It is the
// one error type of every row reader, so callers can test for it with
// errors.As and print it as "file:line: problem".
type RowError struct {
	File string
	Line int
	Err  error
}

// Error formats the problem as "file:line: problem".
func (e *RowError) Error() string { return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err) }

// Unwrap returns the problem without its place, for errors.Is and errors.As.
func (e *RowError) Unwrap() error { return e.Err }

// bom is the UTF-8 byte order mark some tools write at the start of a file.
var bom = []byte("\ufeff")

// Func handles one row: its raw JSON (a JSONL line with the surrounding
// whitespace trimmed, or one array element) and the 1-based line where it
// starts. An error it returns becomes that row's *RowError.
type Func func(raw []byte, line int) error

// Lines calls fn for every non-blank line of the JSON Lines stream r, named
// file in errors. Lines of any length are read, and passed on valid JSON or
// not: their parser judges them. A byte order mark before the first line is
// dropped; a line cut by a read failure is not passed on. The *RowError of
// each row fn rejects is collected and the walk goes on, unless stop is
// set, when the first one ends it. err is a failure to read r; the rows
// before it have been handled.
func Lines(file string, r io.Reader, stop bool, fn Func) (rowErrs []*RowError, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for line := 1; ; line++ {
		text, rerr := br.ReadBytes('\n')
		if rerr != nil && rerr != io.EOF {
			return rowErrs, rerr
		}
		if line == 1 {
			text = bytes.TrimPrefix(text, bom)
		}
		if t := bytes.TrimSpace(text); len(t) > 0 {
			if ferr := fn(t, line); ferr != nil {
				rowErrs = append(rowErrs, &RowError{file, line, ferr})
				if stop {
					return rowErrs, nil
				}
			}
		}
		if rerr == io.EOF {
			return rowErrs, nil
		}
	}
}

// File calls fn for every row of the file at path, read as Data reads its
// content. err is set only when the file cannot be read at all.
func File(path, key string, fn Func) (rowErrs []*RowError, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Data(path, data, key, fn), nil
}

// Data calls fn for every row of data, the content of file (a leading byte
// order mark is dropped): each element
// of a top-level JSON array; or, when key is set and data is one JSON
// object holding it, each element of the array under key (CoderEval's
// "RECORDS"); else each non-blank line, as Lines does. Row errors are
// collected; a JSON syntax error inside an array ends the walk, as the rest
// cannot be framed.
func Data(file string, data []byte, key string, fn Func) []*RowError {
	body := bytes.TrimPrefix(data, bom)
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		return elements(file, body, "", fn)
	case key != "" && len(trimmed) > 0 && trimmed[0] == '{' && bytes.Contains(body, []byte(strconv.Quote(key))):
		return elements(file, body, key, fn)
	}
	// A bytes.Reader fails only at its end, which Lines takes as EOF.
	rowErrs, _ := Lines(file, bytes.NewReader(data), false, fn)
	return rowErrs
}

// elements handles a JSON array, at the top level of data or under key of
// its top-level object.
func elements(file string, data []byte, key string, fn Func) []*RowError {
	dec := json.NewDecoder(bytes.NewReader(data))
	fail := func(err error) []*RowError {
		return []*RowError{{file, lineAt(data, dec.InputOffset()), err}}
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
	var rowErrs []*RowError
	for dec.More() {
		line := lineAt(data, skipSpace(data, dec.InputOffset()))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return append(rowErrs, &RowError{file, line, err})
		}
		if err := fn(raw, line); err != nil {
			rowErrs = append(rowErrs, &RowError{file, line, err})
		}
	}
	return rowErrs
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
