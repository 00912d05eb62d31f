package gitignore

import "testing"

func TestParse(t *testing.T) {
	l := Parse("sub", []byte("# comment\n\n*.log\n!keep.log\nbuild/\n/root.txt\ndoc/*.md\n\\#hash\n\\!bang\ntrail\\ \nspaces   \r\n"))
	want := []Pattern{
		{glob: "*.log"},
		{glob: "keep.log", negate: true},
		{glob: "build", dirOnly: true},
		{glob: "root.txt", anchored: true},
		{glob: "doc/*.md", anchored: true},
		{glob: `\#hash`},
		{glob: `\!bang`},
		{glob: `trail\ `},
		{glob: "spaces"},
	}
	if l.Base != "sub" || len(l.Patterns) != len(want) {
		t.Fatalf("got %+v", l)
	}
	for i, p := range want {
		if l.Patterns[i] != p {
			t.Errorf("pattern %d = %+v, want %+v", i, l.Patterns[i], p)
		}
	}
}

func TestMatcher(t *testing.T) {
	root := Parse("", []byte("*.log\n!important.log\nbuild/\n/only-root.txt\ndocs/**/*.tmp\n"))
	sub := Parse("pkg", []byte("!debug.log\n/local.txt\ngen/\n"))
	m := (&Matcher{}).With(root)
	ms := m.With(sub)
	cases := []struct {
		m     *Matcher
		rel   string
		isDir bool
		want  bool
	}{
		{m, "a.log", false, true},
		{m, "x/y/a.log", false, true},
		{m, "important.log", false, false},
		{m, "x/important.log", false, false},
		{m, "build", true, true},
		{m, "x/build", true, true},
		{m, "build", false, false}, // a file named build is not a folder
		{m, "only-root.txt", false, true},
		{m, "x/only-root.txt", false, false},
		{m, "docs/a/b/c.tmp", false, true},
		{m, "docs/c.tmp", false, true},
		{m, "other/docs/c.tmp", false, false},
		{ms, "pkg/debug.log", false, false}, // deeper file re-includes
		{ms, "pkg/other.log", false, true},  // root pattern still applies
		{ms, "pkg/local.txt", false, true},
		{ms, "local.txt", false, false},
		{ms, "pkg/x/local.txt", false, false}, // anchored to pkg/
		{ms, "pkg/x/gen", true, true},
		{ms, "pkgx/local.txt", false, false},
	}
	for _, c := range cases {
		if got := c.m.Ignored(c.rel, c.isDir); got != c.want {
			t.Errorf("Ignored(%q, dir=%v) = %v, want %v", c.rel, c.isDir, got, c.want)
		}
	}
	if m.Ignored("pkg/local.txt", false) {
		t.Error("With changed its receiver")
	}
}

func FuzzParse(f *testing.F) {
	f.Add("sub", "*.py\n!a.py\nbuild/\n/x\n\\ \n")
	f.Fuzz(func(t *testing.T, base, data string) {
		l := Parse(base, []byte(data))
		m := (&Matcher{}).With(l)
		m.Ignored(base+"/a/b.py", false)
		m.Ignored(base+"/a", true)
	})
}
