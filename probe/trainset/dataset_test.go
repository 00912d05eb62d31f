package trainset

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"actor/internal/testsupport"
	"actor/pysrc"
)

const source = `"""Module docstring."""
import os


def add(a, b):
    """Add two numbers.

    Returns the sum.
    """
    # a comment
    return a + b


def nodoc(x):
    return x


def only_doc():
    """Nothing else."""


def fdoc():
    f"""not a docstring {1}"""
    return 1


def empty_doc():
    """"""
    return 2


def inline():
    """Doc."""; return 3


class Box:
    """A box."""

    @property
    def size(self) -> int:
        # leading comment
        """Size of the box."""

        def inner():
            """Inner functions are not extracted."""
            return 0
        return len(self.items)

    async def fetch(self, url: str,
                    timeout: float = 1.0):
        '''Fetch url.'''
        async with self.session.get(url) as r:
            return await r.text()


def broken(:
    """Doc."""
    return 1
`

func functions(t *testing.T, src string) ([]Sample, Report) {
	p, err := pysrc.NewParser()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var rep Report
	got, err := Functions(p, []byte(src), DefaultOptions(), &rep)
	if err != nil {
		t.Fatal(err)
	}
	return got, rep
}

func TestFunctionsHandWorked(t *testing.T) {
	got, rep := functions(t, source)
	want := []Sample{
		{Signature: "def add(a, b):", Docstring: "Add two numbers.\n\n    Returns the sum.\n    ",
			Prompt: "def add(a, b):\n    \"\"\"Add two numbers.\n\n    Returns the sum.\n    \"\"\"\n",
			Body:   "    # a comment\n    return a + b", StartLine: 4, BodyLine: 9},
		{Signature: "def size(self) -> int:", Docstring: "Size of the box.",
			Prompt:    "def size(self) -> int:\n    # leading comment\n    \"\"\"Size of the box.\"\"\"\n",
			Body:      "    def inner():\n        \"\"\"Inner functions are not extracted.\"\"\"\n        return 0\n    return len(self.items)",
			StartLine: 39, BodyLine: 43},
		{Signature: "async def fetch(self, url: str, timeout: float = 1.0):", Docstring: "Fetch url.",
			Prompt: "async def fetch(self, url: str,\n                timeout: float = 1.0):\n    '''Fetch url.'''\n",
			Body:   "    async with self.session.get(url) as r:\n        return await r.text()", StartLine: 48, BodyLine: 51},
	}
	if len(got) != len(want) {
		for _, s := range got {
			t.Logf("got %q", s.Signature)
		}
		t.Fatalf("%d functions, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("function %d:\n got %#v\nwant %#v", i, got[i], want[i])
		}
	}
	// add, nodoc, only_doc, fdoc, empty_doc, inline, size, fetch, broken
	wantRep := Report{Functions: 9, NoDocstring: 2, BadDocstring: 1, NoBody: 1, InlineBody: 1, ParseErrs: 1}
	if rep != wantRep {
		t.Errorf("report %+v, want %+v", rep, wantRep)
	}
	// Prompt+Body of every sample parses as Python without errors.
	for _, s := range got {
		f, err := pysrc.Parse([]byte(s.Function()))
		if err != nil {
			t.Fatal(err)
		}
		if f.Root().HasError() {
			t.Errorf("%s does not parse:\n%s", s.Signature, s.Function())
		}
		f.Close()
	}
}

// The docstring rule is pysrc's (Python's): implicitly concatenated
// literals are one docstring, an f-string or bytes literal is none.
func TestFunctionsDocstringRule(t *testing.T) {
	src := "def cat():\n    \"Part one, \" 'part two.'\n    return 1\n\n\n" +
		"def fdoc():\n    \"a\" f\"b{1}\"\n    return 2\n\n\n" +
		"def bdoc():\n    b\"bytes\"\n    return 3\n"
	got, rep := functions(t, src)
	if len(got) != 1 || got[0].Signature != "def cat():" || got[0].Docstring != "Part one, part two." {
		t.Fatalf("samples %#v", got)
	}
	if rep.NoDocstring != 2 {
		t.Errorf("report %+v, want 2 without docstring", rep)
	}
}

func fn(name string) string {
	return "def " + name + "(x):\n    \"\"\"Doc of " + name + ".\"\"\"\n    return x\n\n\n"
}

func TestExtractReposFilters(t *testing.T) {
	root := t.TempDir()
	a := testsupport.WriteTree(t, filepath.Join(root, "alpha"), map[string]string{
		"pkg/a.py": fn("a1") + fn("a2") + fn("a3"), "pkg/b.py": fn("b1"),
		"tests/test_a.py": fn("t1"), ".venv/x.py": fn("hidden"), "latin.py": "# \xe9\n" + fn("bad"),
	})
	b := testsupport.WriteTree(t, filepath.Join(root, "beta"), map[string]string{"m.py": fn("m1") + fn("m2")})
	c := testsupport.WriteTree(t, filepath.Join(root, "RepoExecProject"), map[string]string{"m.py": fn("r1") + fn("r2") + fn("r3")})
	o := DefaultOptions()
	o.MinPerRepo, o.Exclude, o.SkipTests = 3, []string{"RepoExecProject"}, true
	got, rep, err := ExtractRepos([]string{a, b, c}, o)
	if err != nil {
		t.Fatal(err)
	}
	var ids, names []string
	for _, s := range got {
		ids = append(ids, s.ID)
		names = append(names, s.Path+":"+strings.Fields(s.Signature)[1])
	}
	if strings.Join(ids, " ") != "alpha/0 alpha/1 alpha/2 alpha/3" ||
		strings.Join(names, " ") != "pkg/a.py:a1(x): pkg/a.py:a2(x): pkg/a.py:a3(x): pkg/b.py:b1(x):" {
		t.Errorf("ids %v names %v", ids, names)
	}
	if rep.Repos != 3 || rep.ReposKept != 1 || rep.FilesSkipped != 1 || rep.Kept != 4 {
		t.Errorf("report %+v", rep)
	}
	o.MinPerRepo, o.SkipTests, o.Limit = 1, false, 3
	got2, _, _ := ExtractRepos([]string{a, b}, o)
	again, _, _ := ExtractRepos([]string{a, b}, o)
	if len(got2) != 3 || !reflect.DeepEqual(got2, again) {
		t.Errorf("limit 3: %d samples, deterministic %v", len(got2), reflect.DeepEqual(got2, again))
	}
	o.Limit, o.MaxPerRepo = 0, 1
	got3, _, _ := ExtractRepos([]string{a, b}, o)
	if len(got3) != 2 || got3[0].Repo != "alpha" || got3[1].Repo != "beta" {
		t.Errorf("max per repo 1: %+v", got3)
	}
}

func TestRepoSTReadWrite(t *testing.T) {
	got, skipped, err := ReadRepoST("testdata/repost.jsonl", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(skipped) != 3 {
		t.Fatalf("%d samples, %d skipped: %v", len(got), len(skipped), skipped)
	}
	// The authors' row: ground_truth has flattened indentation; the body
	// comes from prompt instead.
	if got[0].ID != "AudioLDM/3" || got[0].Repo != "AudioLDM" || got[0].Path != "tokenizer.py" ||
		got[0].Body != "    pairs = set()\n    for c in word:\n        pairs.add(c)\n    return pairs" {
		t.Errorf("row 1: %#v", got[0])
	}
	// Top-level fields and no prompt: ground_truth is used.
	if got[1].ID != "flat/0" || got[1].Body != "    return 1" || got[1].Prompt != "def one():\n    \"\"\"One.\"\"\"\n" {
		t.Errorf("row 2: %#v", got[1])
	}
	wantErrs := []string{"testdata/repost.jsonl:3: task empty/0: function without a body",
		"testdata/repost.jsonl:4: invalid JSON", "testdata/repost.jsonl:5: task id \"flat/0\" repeated"}
	for i, w := range wantErrs {
		if !strings.HasPrefix(skipped[i].Error(), w) {
			t.Errorf("skipped %d: %v, want %q…", i, skipped[i], w)
		}
	}
	if !errors.Is(skipped[0], ErrNoBody) {
		t.Error("no-body row does not match ErrNoBody")
	}
	if _, _, err := ReadRepoST("testdata/repost.jsonl", true); err == nil || !strings.Contains(err.Error(), "repost.jsonl:3: task empty/0: function without a body") {
		t.Errorf("strict: %v", err)
	}
	if _, _, err := ReadRepoST("testdata/missing.jsonl", false); err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("missing file: %v", err)
	}
	var buf bytes.Buffer
	if err := WriteRepoST(&buf, got); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "out.jsonl")
	os.WriteFile(path, buf.Bytes(), 0o644)
	back, skipped, err := ReadRepoST(path, true)
	if err != nil || len(skipped) != 0 || !reflect.DeepEqual(back, got) {
		t.Errorf("round trip: %v\n%#v\n%#v", err, back, got)
	}
}

func FuzzParseRow(f *testing.F) {
	b, _ := os.ReadFile("testdata/repost.jsonl")
	for _, l := range bytes.Split(b, []byte("\n")) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		s, err := parseRow(line)
		if err == nil && (s.ID == "" || strings.TrimSpace(s.Body) == "" || !strings.HasSuffix(s.Prompt, "\n")) {
			t.Fatalf("accepted an unusable row: %#v", s)
		}
	})
}

func FuzzFunctions(f *testing.F) {
	f.Add(source)
	f.Add("def f():\n  '''x'''\n  return 1\n")
	f.Add("class A:\n\tdef f(self):\n\t\t'd'\n\t\tpass\n")
	p, err := pysrc.NewParser()
	if err != nil {
		f.Fatal(err)
	}
	defer p.Close()
	f.Fuzz(func(t *testing.T, src string) {
		var rep Report
		got, err := Functions(p, []byte(src), DefaultOptions(), &rep)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range got {
			if strings.TrimSpace(s.Body) == "" || !strings.HasSuffix(s.Prompt, "\n") {
				t.Fatalf("unusable sample %#v", s)
			}
		}
	})
}
