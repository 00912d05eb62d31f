package generate

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"actor/index"
	"actor/internal/testsupport"
	"actor/retrieve"
)

// ipRepo: val.py's V.is_ip is the target; its docstring mentions
// IP_V6_RE, which val.py star-imports from _regex.py; V's base is
// base.py's Base, imported as B.
var ipRepo = map[string]string{
	"pkg/__init__.py": "",
	"pkg/_regex.py": "import re\n\nIP_V4_RE = re.compile(r'^\\d+$')\nIP_V6_RE = re.compile(r'^[a-f:]+$')\n" +
		"TABLE = {\n    'a': 1,\n}\n_PRIVATE = 1\n",
	"pkg/base.py": "class Base:\n    def shared(self, x):\n        \"\"\"Shared.\"\"\"\n        return x\n",
	"pkg/val.py": "from ._regex import *\nfrom .base import Base as B\n\n\nclass V(B):\n    limit = 3\n\n" +
		"    def other(self):\n        return 1\n\n    def is_ip(self, s):\n        \"\"\"Checks with IP_V6_RE.\"\"\"\n        return SECRET_BODY\n",
}

// TestNameIndex checks the index worked by hand: one line a name, grouped
// by file in the file's order, members under their class's line, the
// file of the name the docstring mentions last (nearest the target), an
// alias said, private names and the target itself left out; a budget
// keeps the best-ranked names; the definitions follow the index.
func TestNameIndex(t *testing.T) {
	root := testsupport.WriteTree(t, t.TempDir(), ipRepo)
	c, err := ReadCorpus(root, index.WalkOptions{Include: []string{"*.py"}})
	if err != nil {
		t.Fatal(err)
	}
	tg, err := retrieve.AtLine(root, "pkg/val.py", 12)
	if err != nil {
		t.Fatal(err)
	}
	_, tok := loadTiny(t)
	index := func(tokens int, symbols bool) []retrieve.Result {
		t.Helper()
		fr := &framer{opt: ContextOptions{NameIndex: true, Symbols: symbols, SymbolTokens: tokens}, corpus: c, tok: tok}
		frame, err := fr.frame(tg, false)
		if err != nil {
			t.Fatal(err)
		}
		return frame.Symbols
	}
	var got []string
	for _, r := range index(10000, false) {
		got = append(got, r.Path+"\n"+r.Text)
		if r.Source != retrieve.SourceSymbol || r.Why != whyIndex {
			t.Errorf("%s: source %q, why %q", r.Path, r.Source, r.Why)
		}
	}
	want := []string{
		"pkg/base.py\nclass Base:  # imported as B\n    def shared(self, x): ...",
		"pkg/val.py\nclass V:\n    limit = 3\n    def other(self): ...",
		"pkg/_regex.py\nIP_V4_RE = re.compile(r'^\\d+$')\nIP_V6_RE = re.compile(r'^[a-f:]+$')\nTABLE = ...",
	}
	if strings.Join(got, "\n--\n") != strings.Join(want, "\n--\n") {
		t.Errorf("index:\n%s\nwant\n%s", strings.Join(got, "\n--\n"), strings.Join(want, "\n--\n"))
	}
	// A budget of the mentioned name's line keeps it alone.
	line := "IP_V6_RE = re.compile(r'^[a-f:]+$')"
	if small := index(len(tok.Encode(line+"\n", false)), false); len(small) != 1 || small[0].Text != line {
		t.Errorf("small budget: %+v", small)
	}
	// With the definitions: the index first, then the definitions in what
	// it left of the budget.
	both := index(10000, true)
	if len(both) <= 3 || both[3].Why == whyIndex || both[2].Why != whyIndex {
		t.Errorf("index then definitions: %+v", both)
	}
	for _, r := range both {
		if strings.Contains(r.Text, "SECRET_BODY") || strings.Contains(r.Text, "is_ip") {
			t.Errorf("the target is shown: %q", r.Text)
		}
	}
}

// Words of identifiers, worked by hand.
func TestNameWords(t *testing.T) {
	got := nameWords("is_ip_v6(IP_V6_RE) isIPv6 x")
	want := []string{"ip", "ip_v6_re", "ipv6", "is", "is_ip_v6", "isipv6", "re", "v6"}
	if keys := slices.Sorted(maps.Keys(got)); !slices.Equal(keys, want) {
		t.Errorf("nameWords: %q, want %q", keys, want)
	}
}
