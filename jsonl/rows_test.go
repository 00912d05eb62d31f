package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// row is one delivered row: its raw JSON and line.
type row struct {
	Raw  string
	Line int
}

// collect returns a Func that records every row and rejects the rows for
// which reject returns an error.
func collect(rows *[]row, reject func(raw []byte) error) Func {
	return func(raw []byte, line int) error {
		*rows = append(*rows, row{string(raw), line})
		if reject != nil {
			return reject(raw)
		}
		return nil
	}
}

// noB rejects rows holding a "b" field.
func noB(raw []byte) error {
	if bytes.Contains(raw, []byte(`"b"`)) {
		return errors.New("b is not allowed")
	}
	return nil
}

func messages(rowErrs []*RowError) []string {
	var out []string
	for _, e := range rowErrs {
		out = append(out, e.Error())
	}
	return out
}

func TestLinesBlankAndBadRow(t *testing.T) {
	in := "{\"a\": 1}\n\n   \r\n\t{\"b\": 2}  \n{\"c\": 3}\r\n\n"
	var rows []row
	rowErrs, err := Lines("t.jsonl", strings.NewReader(in), false, collect(&rows, noB))
	if err != nil {
		t.Fatal(err)
	}
	want := []row{{`{"a": 1}`, 1}, {`{"b": 2}`, 4}, {`{"c": 3}`, 5}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows = %v, want %v", rows, want)
	}
	if got := messages(rowErrs); !reflect.DeepEqual(got, []string{"t.jsonl:4: b is not allowed"}) {
		t.Errorf("errors = %q", got)
	}
	if rowErrs[0].File != "t.jsonl" || rowErrs[0].Line != 4 || rowErrs[0].Unwrap().Error() != "b is not allowed" {
		t.Errorf("row error fields %+v", rowErrs[0])
	}

	rows = nil
	rowErrs, err = Lines("t.jsonl", strings.NewReader(in), true, collect(&rows, noB))
	if err != nil || len(rows) != 2 || len(rowErrs) != 1 || rowErrs[0].Line != 4 {
		t.Errorf("stop: rows %v errors %v err %v", rows, rowErrs, err)
	}
}

func TestLinesTruncatedAndLong(t *testing.T) {
	long := `{"s": "` + strings.Repeat("x", 3<<20) + `"}`
	in := "\ufeff" + long + "\n" + `{"a": 1}` + "\n" + `{"b": [1, 2`
	var rows []row
	rowErrs, err := Lines("t.jsonl", strings.NewReader(in), false, collect(&rows, func(raw []byte) error {
		var v any
		return json.Unmarshal(raw, &v)
	}))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0].Raw != long || rows[1].Line != 2 || rows[2] != (row{`{"b": [1, 2`, 3}) {
		t.Errorf("%d rows, first %d bytes, rest %v", len(rows), len(rows[0].Raw), rows[1:])
	}
	if got := messages(rowErrs); len(got) != 1 || got[0] != "t.jsonl:3: unexpected end of JSON input" {
		t.Errorf("errors = %q", got)
	}
}

func TestLinesReadError(t *testing.T) {
	boom := errors.New("disk gone")
	r := io.MultiReader(strings.NewReader("{\"a\": 1}\n{\"a\""), iotest.ErrReader(boom))
	var rows []row
	rowErrs, err := Lines("t.jsonl", r, false, collect(&rows, nil))
	if !errors.Is(err, boom) || len(rowErrs) != 0 {
		t.Fatalf("err %v, row errors %v", err, rowErrs)
	}
	// The rows before the failure were handled, the cut one was not.
	if !reflect.DeepEqual(rows, []row{{`{"a": 1}`, 1}}) {
		t.Errorf("rows = %v", rows)
	}
}

func TestDataArray(t *testing.T) {
	in := "\ufeff[\n  {\"a\": 1},\n  {\"b\": 2}, {\"c\": 3},\n\n  [4,\n   5]\n]\n"
	var rows []row
	rowErrs := Data("t.json", []byte(in), "", collect(&rows, noB))
	want := []row{{`{"a": 1}`, 2}, {`{"b": 2}`, 3}, {`{"c": 3}`, 3}, {"[4,\n   5]", 5}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows = %+v, want %+v", rows, want)
	}
	if got := messages(rowErrs); !reflect.DeepEqual(got, []string{"t.json:3: b is not allowed"}) {
		t.Errorf("errors = %q", got)
	}

	// A syntax error ends the walk at its element's line.
	rows = nil
	rowErrs = Data("t.json", []byte("[{\"a\": 1},\n{\"a\": }, {\"c\": 3}]"), "", collect(&rows, nil))
	if len(rows) != 1 || len(rowErrs) != 1 || rowErrs[0].Line != 2 || !strings.HasPrefix(rowErrs[0].Error(), "t.json:2: invalid character '}'") {
		t.Errorf("syntax error: rows %v errors %q", rows, messages(rowErrs))
	}
}

func TestDataKey(t *testing.T) {
	in := "{\"meta\": {\"RECORDS\": 0, \"x\": [1]},\n \"RECORDS\": [\n  {\"a\": 1},\n  {\"b\": 2}\n ],\n \"after\": 1}\n"
	var rows []row
	rowErrs := Data("t.json", []byte(in), "RECORDS", collect(&rows, noB))
	if want := []row{{`{"a": 1}`, 3}, {`{"b": 2}`, 4}}; !reflect.DeepEqual(rows, want) {
		t.Errorf("rows = %+v, want %+v", rows, want)
	}
	if got := messages(rowErrs); !reflect.DeepEqual(got, []string{"t.json:4: b is not allowed"}) {
		t.Errorf("errors = %q", got)
	}

	for in, want := range map[string]string{
		"{\"RECORDS\": 1,\n \"other\": []}":        `t.json:1: expected a JSON array`,
		"{\"a\": \"RECORDS\",\n \"b\": [1]}":       `t.json:2: no "RECORDS" array`,
		"{\"a\": [1, \"RECORDS\"\n, }":             `t.json:1: invalid character '}' looking for beginning of value`,
		"{\"x\": 1, \"RECORDS\": [{\"a\": 1}, {]}": `t.json:1: invalid character ']' looking for beginning of object key string`,
	} {
		rowErrs := Data("t.json", []byte(in), "RECORDS", collect(new([]row), nil))
		if got := messages(rowErrs); len(got) != 1 || got[0] != want {
			t.Errorf("%q: errors %q, want %q", in, got, want)
		}
	}

	// Without the key in the file, an object is one JSONL row.
	rows = nil
	if rowErrs := Data("t.json", []byte(`{"a": [1]}`), "RECORDS", collect(&rows, nil)); len(rowErrs) != 0 || len(rows) != 1 || rows[0].Line != 1 {
		t.Errorf("object without the key: rows %v errors %v", rows, rowErrs)
	}
}

func TestFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(p, []byte("{\"a\": 1}\n\n{\"b\": 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var rows []row
	rowErrs, err := File(p, "", collect(&rows, noB))
	if err != nil || len(rows) != 2 {
		t.Fatalf("rows %v err %v", rows, err)
	}
	if got := messages(rowErrs); !reflect.DeepEqual(got, []string{p + ":3: b is not allowed"}) {
		t.Errorf("errors = %q", got)
	}
	for _, bad := range []string{filepath.Join(dir, "missing.jsonl"), dir} {
		if rowErrs, err := File(bad, "", collect(new([]row), nil)); err == nil || len(rowErrs) != 0 || !strings.Contains(err.Error(), bad) {
			t.Errorf("unreadable %s: err %v, row errors %v", bad, err, rowErrs)
		}
	}
}

// FuzzData checks the framing of any input: JSONL rows are exactly the
// non-blank lines with their numbers, array rows are valid JSON on
// increasing lines, and every row error names the file and a line of it.
func FuzzData(f *testing.F) {
	f.Add([]byte("{\"a\": 1}\n\n{\"b\": 2}\n{oops"), false)
	f.Add([]byte("[\n{\"a\": 1},\n{\"b\": 2}, 3\n]"), false)
	f.Add([]byte("[{\"a\": 1}, {]"), false)
	f.Add([]byte("\ufeff[1]"), false)
	f.Add([]byte("\ufeff{\"a\": 1}\n x"), true)
	f.Add([]byte("{\"RECORDS\": [\n{\"b\": 1},\n\"x\"]}"), true)
	f.Add([]byte("{\"k\": {\"RECORDS\": 1}, \"RECORDS\": 2}"), true)
	f.Fuzz(func(t *testing.T, data []byte, keyed bool) {
		const file = "rows.jsonl"
		key := ""
		if keyed {
			key = "RECORDS"
		}
		var rows []row
		rowErrs := Data(file, data, key, collect(&rows, noB))
		nlines := bytes.Count(data, []byte("\n")) + 1
		for _, e := range rowErrs {
			if e.File != file || e.Line < 1 || e.Line > nlines || !strings.HasPrefix(e.Error(), fmt.Sprintf("%s:%d: ", file, e.Line)) {
				t.Fatalf("error %v does not name a line of %s (%d lines)", e, file, nlines)
			}
		}
		var rejected []int
		for _, r := range rows {
			if noB([]byte(r.Raw)) != nil {
				rejected = append(rejected, r.Line)
			}
		}
		for i, line := range rejected {
			if i >= len(rowErrs) || rowErrs[i].Line != line {
				t.Fatalf("rejected rows on lines %v, errors %v", rejected, messages(rowErrs))
			}
		}
		data = bytes.TrimPrefix(data, []byte("\ufeff"))
		trimmed := bytes.TrimLeft(data, " \t\r\n")
		if len(trimmed) > 0 && (trimmed[0] == '[' || trimmed[0] == '{' && keyed && bytes.Contains(data, []byte(`"RECORDS"`))) {
			for i, r := range rows {
				if !json.Valid([]byte(r.Raw)) || i > 0 && r.Line < rows[i-1].Line {
					t.Fatalf("array row %d %q on line %d (previous on %d)", i, r.Raw, r.Line, rows[max(i-1, 0)].Line)
				}
			}
			return
		}
		var want []row
		for i, l := range bytes.Split(data, []byte("\n")) {
			if l = bytes.TrimSpace(l); len(l) > 0 {
				want = append(want, row{string(l), i + 1})
			}
		}
		if !reflect.DeepEqual(rows, want) || len(rowErrs) != len(rejected) {
			t.Fatalf("JSONL rows %+v, want %+v; errors %v", rows, want, messages(rowErrs))
		}
	})
}

// FuzzLines checks that stopping at the first row error delivers the rows
// up to it and that error alone, whatever the reader's read sizes.
func FuzzLines(f *testing.F) {
	f.Add([]byte("{\"a\": 1}\n\n{\"b\": 2}\n{\"c\": 3}"))
	f.Add([]byte("\n\n{\"b\"\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var all, some []row
		allErrs, err := Lines("f", bytes.NewReader(data), false, collect(&all, noB))
		if err != nil {
			t.Fatal(err)
		}
		someErrs, err := Lines("f", iotest.OneByteReader(bytes.NewReader(data)), true, collect(&some, noB))
		if err != nil {
			t.Fatal(err)
		}
		if len(allErrs) == 0 {
			if len(someErrs) != 0 || !reflect.DeepEqual(some, all) {
				t.Fatalf("no errors, but stop read %v of %v", some, all)
			}
			return
		}
		if len(someErrs) != 1 || someErrs[0].Error() != allErrs[0].Error() || len(some) == 0 || some[len(some)-1].Line != allErrs[0].Line || !reflect.DeepEqual(some, all[:len(some)]) {
			t.Fatalf("stop: rows %v errors %v; all rows %v errors %v", some, messages(someErrs), all, messages(allErrs))
		}
	})
}
