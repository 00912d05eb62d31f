package gitignore

import "testing"

// Cases worked from git's documentation (gitignore(5), wildmatch rules in
// pathname mode).
func TestMatch(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"foo", "foo", true},
		{"foo", "bar", false},
		{"", "", true},
		{"???", "foo", true},
		{"??", "foo", false},
		{"*", "foo", true},
		{"f*", "foo", true},
		{"*f", "foo", false},
		{"*foo*", "foo", true},
		{"*ob*a*r*", "foobar", true},
		{"*ab", "aaaaaaabababab", true},
		{`foo\*`, "foo*", true},
		{`foo\*bar`, "foobar", false},
		{`f\\oo`, `f\oo`, true},
		{"*[al]?", "ball", true},
		{"[ten]", "ten", false},
		{"t[a-g]n", "ten", true},
		{"t[!a-g]n", "ten", false},
		{"t[!a-g]n", "ton", true},
		{"t[^a-g]n", "ton", true},
		{"a[]]b", "a]b", true},
		{"a[]-]b", "a-b", true},
		{"a[]-]b", "a]b", true},
		{"a[]-]b", "aab", false},
		{"a[]a-]b", "aab", true},
		{"]", "]", true},
		{"[[:digit:]]x", "7x", true},
		{"[[:digit:]]x", "ax", false},
		{"[[:nope:]]", "a", false},
		{"[abc", "a", false},
		{`foo\`, "foo", false},
		// '*', '?' and brackets never cross '/'.
		{"foo*bar", "foo/baz/bar", false},
		{"foo?bar", "foo/bar", false},
		{"foo[/]bar", "foo/bar", false},
		{"foo[^a-z]bar", "foo/bar", false},
		{"*.py", "a/b.py", false},
		// '**' only as a whole component; otherwise it is '*'.
		{"foo**bar", "foo/baz/bar", false},
		{"foo**bar", "foobazbar", true},
		{"foo/**/bar", "foo/baz/bar", true},
		{"foo/**/bar", "foo/b/a/z/bar", true},
		{"foo/**/bar", "foo/bar", true},
		{"foo/**/**/bar", "foo/bar", true},
		{"foo/**/**/bar", "foo/b/a/z/bar", true},
		{"**/foo", "foo", true},
		{"**/foo", "XXX/foo", true},
		{"**/foo", "bar/baz/foo", true},
		{"**/foo", "barfoo", false},
		{"*/foo", "bar/baz/foo", false},
		{"**/bar*", "foo/bar/baz", false},
		{"**/bar/*", "deep/foo/bar/baz", true},
		{"**/bar/*", "deep/foo/bar", false},
		{"**/bar/**", "deep/foo/bar/baz/x", true},
		{"*/bar/**", "foo/bar/baz/x", true},
		{"*/bar/**", "deep/foo/bar/baz/x", false},
		{"abc/**", "abc/x/y", true},
		{"abc/**", "abc", false},
		{"**", "a/b/c", true},
		{"a/**/b", "a/xb", false},
	}
	for _, c := range cases {
		if got := Match(c.pattern, c.name); got != c.want {
			t.Errorf("Match(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
}

// A pathological pattern against a long name must stay fast (memoised).
func TestMatchManyStars(t *testing.T) {
	name := ""
	for i := 0; i < 200; i++ {
		name += "a"
	}
	if Match("*a*a*a*a*a*a*a*a*a*a*a*b", name) {
		t.Fatal("matched a name without b")
	}
}

func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{{"*.py", "a.py"}, {"a/**/b", "a/x/b"}, {"[!a-c]?", "dx"}, {"[[:alpha:]", "q"}, {`\`, ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if len(pattern) > 64 || len(name) > 256 {
			return
		}
		Match(pattern, name)
		// A pattern without special characters matches exactly itself.
		plain := true
		for _, r := range pattern {
			if r == '*' || r == '?' || r == '[' || r == '\\' {
				plain = false
			}
		}
		if plain && Match(pattern, name) != (pattern == name) {
			t.Fatalf("plain pattern %q vs %q", pattern, name)
		}
	})
}
