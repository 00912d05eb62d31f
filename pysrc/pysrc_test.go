package pysrc

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const sample = `import os

CONST = 1
A, B = 2, 3

@decorator
def helper(x):
    return x

class K(Base):
    attr = 5

    def method(self, y):
        """Method doc."""
        return self.attr + y

if os.name == "nt":
    def win():
        pass
else:
    def win():
        pass

def target(a, b=CONST, *args, c: int = 2, **kw):
    """Docstring
    spanning lines."""
    # a comment
    total = helper(a) + K.method(b)
    for i, j in zip(args, kw):
        total += i
    with open(os.path.join("x")) as fh:
        data = fh.read()
    f = lambda z: z + B
    def inner(q):
        return q
    return sorted(total, key=len, reverse=inner(A))

async def coro():
    await target(1)

def no_doc(x): return x
`

func parse(t *testing.T, src string) *File {
	t.Helper()
	f, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.Close)
	return f
}

func TestFunctions(t *testing.T) {
	f := parse(t, sample)
	type row struct {
		name       string
		start, end int
		bodyStart  int
		prompt     string
	}
	var got []row
	for _, fn := range f.Functions() {
		got = append(got, row{fn.Name, fn.Start, fn.End, fn.BodyStart, fn.Prompt})
		if want := map[bool]int{true: 6, false: fn.Start}[fn.Name == "helper"]; fn.DeclStart != want {
			t.Errorf("%s: DeclStart %d, want %d", fn.Name, fn.DeclStart, want)
		}
	}
	want := []row{
		{"helper", 7, 8, 8, "def helper(x):\n"},
		{"method", 13, 15, 15, "    def method(self, y):\n        \"\"\"Method doc.\"\"\"\n"},
		{"win", 18, 19, 19, "    def win():\n"},
		{"win", 21, 22, 22, "    def win():\n"},
		{"target", 24, 36, 28, "def target(a, b=CONST, *args, c: int = 2, **kw):\n    \"\"\"Docstring\n    spanning lines.\"\"\"\n"},
		{"inner", 34, 35, 35, "    def inner(q):\n"},
		{"coro", 38, 39, 39, "async def coro():\n"},
		{"no_doc", 41, 41, 41, "def no_doc(x):\n"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("functions\n%+v\nwant\n%+v", got, want)
	}
	if fn := f.Functions()[4]; !strings.HasPrefix(fn.Source, "def target(") || !strings.HasSuffix(fn.Source, "reverse=inner(A))") {
		t.Errorf("source %q", fn.Source)
	}
}

func TestAt(t *testing.T) {
	f := parse(t, sample)
	for line, want := range map[int]string{24: "target", 30: "target", 35: "inner", 36: "target", 14: "method", 41: "no_doc"} {
		fn, err := f.At(line)
		if err != nil || fn.Name != want {
			t.Errorf("At(%d) = %q, %v; want %q", line, fn.Name, err, want)
		}
	}
	for _, line := range []int{1, 11, 23, 100} {
		if fn, err := f.At(line); err == nil {
			t.Errorf("At(%d) = %q, want an error", line, fn.Name)
		}
	}
}

func TestDefinitions(t *testing.T) {
	f := parse(t, sample)
	var got []string
	for _, d := range f.Definitions() {
		s := d.Name
		if d.InClass {
			s = "K." + s
		}
		got = append(got, fmt.Sprintf("%s:%d-%d", s, d.Start, d.End))
	}
	want := []string{"CONST:3-3", "A:4-4", "B:4-4", "helper:6-8", "K:10-15", "K.attr:11-11", "K.method:13-15",
		"win:18-19", "win:21-22", "target:24-36", "coro:38-39", "no_doc:41-41"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("definitions\n%v\nwant\n%v", got, want)
	}
}

func TestUses(t *testing.T) {
	f := parse(t, sample)
	target := f.Functions()[4]
	u := f.Uses(target)
	wantNames := []string{"A", "B", "K", "helper", "len", "open", "os", "sorted", "zip"}
	wantAttrs := []string{"join", "method", "path", "read"}
	if !reflect.DeepEqual(u.Names, wantNames) || !reflect.DeepEqual(u.Attributes, wantAttrs) {
		t.Errorf("uses %+v\nwant names %v attrs %v", u, wantNames, wantAttrs)
	}
	if u := f.Uses(f.Functions()[1]); !reflect.DeepEqual(u.Names, []string(nil)) || !reflect.DeepEqual(u.Attributes, []string{"attr"}) {
		t.Errorf("method uses %+v", u)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Add("def f(:\n  '''")
	f.Add("\xff\xfe\x00def")
	f.Fuzz(func(t *testing.T, src string) {
		file, err := Parse([]byte(src))
		if err != nil {
			return
		}
		defer file.Close()
		for _, fn := range file.Functions() {
			file.Uses(fn)
			if fn.Start > fn.End || !strings.HasSuffix(fn.Prompt, "\n") {
				t.Fatalf("bad function %+v", fn)
			}
		}
		file.Definitions()
		file.At(1)
	})
}

// TestDocstring checks the one docstring rule: Python's.
func TestDocstring(t *testing.T) {
	cases := []struct {
		body    string
		content string
		ok      bool
	}{
		{`"""Plain."""`, "Plain.", true},
		{`# comment first` + "\n    'single'", "single", true},
		{`r"raw \d"`, `raw \d`, true},
		{`"esc\n" 'aped'`, `esc\naped`, true},
		{`"a" f"b{x}"`, "", false},
		{`f"""f-string {x}"""`, "", false},
		{`b"bytes"`, "", false},
		{`x = "assigned"`, "", false},
		{`"a" + "b"`, "", false},
		{`return 1`, "", false},
	}
	for _, c := range cases {
		f := parse(t, "def f():\n    "+c.body+"\n    return 0\n")
		fn := f.Functions()[0]
		_, content, ok := f.Docstring(fn.node.ChildByFieldName("body"))
		if ok != c.ok || content != c.content {
			t.Errorf("%s: docstring %q %v, want %q %v", c.body, content, ok, c.content, c.ok)
		}
		wantPrompt := "def f():\n"
		if c.ok {
			wantPrompt += "    " + c.body + "\n"
		}
		if fn.Prompt != wantPrompt {
			t.Errorf("%s: prompt %q, want %q", c.body, fn.Prompt, wantPrompt)
		}
	}
}

// A module is its .py file, else its package's __init__.py.
func TestModuleFile(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"pkg/mod.py", "pkg/sub/__init__.py", "pkg/both.py", "pkg/both/__init__.py"} {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for module, want := range map[string]string{"pkg.mod": "pkg/mod.py", "pkg.sub": "pkg/sub/__init__.py", "pkg.both": "pkg/both.py"} {
		if got, err := ModuleFile(root, module); err != nil || got != want {
			t.Errorf("ModuleFile(%q) = %q, %v; want %q", module, got, err, want)
		}
	}
	if _, err := ModuleFile(root, "pkg.none"); err == nil || !strings.Contains(err.Error(), "pkg/none.py, pkg/none/__init__.py") {
		t.Errorf("missing module: %v", err)
	}
	if _, err := ModuleFile(root, ""); err == nil {
		t.Error("empty module name accepted")
	}
}

// TestBounds: before a method, the statements of its class body start
// where they start, and the class and the module's statements before it;
// after it, the class body's statements end where they end, then the
// class, then the module's statements. Lines inside a statement (a
// call's second line, a docstring's) are neither.
func TestBounds(t *testing.T) {
	src := "X = g(1,\n      2)\n" + // 1-2
		"class C:\n" + // 3
		"    y = 1\n" + // 4
		"    def m(self):\n        return 1\n" + // 5-6: the target
		"    x = f(1,\n          2)\n" + // 7-8
		"    # a comment\n" + // 9
		"    def n(self):\n        \"\"\"doc\n        more\"\"\"\n" + // 10-12
		"\n" +
		"Y = 2\n" // 14
	f, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fn, err := f.At(6)
	if err != nil || fn.Name != "m" {
		t.Fatalf("At(6) = %q, %v", fn.Name, err)
	}
	starts, ends := f.Bounds(fn)
	if want := []int{1, 3, 4}; !slices.Equal(starts, want) {
		t.Errorf("starts %v, want %v", starts, want)
	}
	if want := []int{8, 9, 12, 14}; !slices.Equal(ends, want) {
		t.Errorf("ends %v, want %v", ends, want)
	}
}

// TestSignature checks each kind's one-line form, worked by hand: a
// decorated def without its decorator, a signature over three lines
// joined, async, a class with bases, a short assignment whole, a long or
// multi-line one as NAME = ....
func TestSignature(t *testing.T) {
	long := "LONG = '" + strings.Repeat("x", 130) + "'"
	f := parse(t, "@cache\ndef f(a,\n      b: int = 2,\n      *c) -> str:\n    \"\"\"Doc.\"\"\"\n    return a\n\n"+
		"async def g(): pass\n\ndef h(\n    x,\n    y,\n) -> Dict[\n    str, int\n]:\n    pass\n\nclass K(Base, metaclass=M):\n    x = 1\n\nRE = re.compile(r'^a+$')\n"+long+"\n"+
		"TABLE = {\n    'a': 1,\n}\n")
	want := map[string]string{
		"f":     "def f(a, b: int = 2, *c) -> str: ...",
		"g":     "async def g(): ...",
		"h":     "def h(x, y,) -> Dict[str, int]: ...",
		"K":     "class K(Base, metaclass=M): ...",
		"x":     "x = 1",
		"RE":    "RE = re.compile(r'^a+$')",
		"LONG":  "LONG = ...",
		"TABLE": "TABLE = ...",
	}
	for _, d := range f.Definitions() {
		if got := f.Signature(d); got != want[d.Name] {
			t.Errorf("%s: %q, want %q", d.Name, got, want[d.Name])
		}
	}
}
