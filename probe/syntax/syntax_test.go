package syntax

import (
	"strings"
	"testing"

	"actor/pysrc"
)

// Tokens as a BPE tokenizer might cut them, with their classes by hand.
var cases = []struct {
	tok   string
	class Class
}{
	{"@", Delimiter}, {"cache", Identifier}, {"\n", Whitespace},
	{"def", Keyword}, {" f", Identifier}, {"(", Delimiter}, {"x", Identifier}, {"):", Delimiter}, {"\n   ", Whitespace},
	{" \"\"\"", Literal}, {"Doc", Literal}, {" string", Literal}, {".\"\"\"", Literal}, {"\n   ", Whitespace},
	{" y", Identifier}, {" =", Operator}, {" x", Identifier}, {" @", Operator}, {" 1", Literal}, {".5", Literal},
	{"  #", Comment}, {" inc", Comment}, {"\n   ", Whitespace},
	{" z", Identifier}, {" =", Operator}, {" f", Literal}, {"'{", Literal}, {"y", Identifier}, {"!r", Literal}, {"}'", Delimiter},
	{"\n   ", Whitespace},
	{" if", Keyword}, {" not", Keyword}, {" y", Identifier}, {" is", Keyword}, {" None", Keyword}, {":", Delimiter},
	{"\n       ", Whitespace}, {" return", Keyword}, {" self", Identifier}, {".", Delimiter}, {"a", Identifier},
	{"[", Delimiter}, {"y", Identifier}, {"],", Delimiter}, {" True", Keyword}, {" ==", Operator}, {" ...", Literal},
	{"\n", Whitespace},
	// plain text around an escape sequence inside a string
	{"w", Identifier}, {" =", Operator}, {" '", Literal}, {"it", Literal}, {"\\'", Literal}, {"s", Literal},
	{" fine", Literal}, {"'", Literal}, {"\n", Whitespace},
}

func TestSpansHandWorked(t *testing.T) {
	var src strings.Builder
	var spans [][2]int
	for _, c := range cases {
		spans = append(spans, [2]int{src.Len(), src.Len() + len(c.tok)})
		src.WriteString(c.tok)
	}
	// A span past the end and an empty span are Unknown.
	spans = append(spans, [2]int{src.Len(), src.Len() + 3}, [2]int{2, 2})
	p, err := pysrc.NewParser()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	got, err := Spans(p, []byte(src.String()), spans)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		if got[i] != c.class {
			t.Errorf("token %d %q: %v, want %v", i, c.tok, got[i], c.class)
		}
	}
	if got[len(cases)] != Unknown || got[len(cases)+1] != Unknown {
		t.Errorf("bad spans: %v %v", got[len(cases)], got[len(cases)+1])
	}
}

// Broken code still gets classes: words in ERROR leaves are identifiers
// unless they are Python keywords.
func TestSpansBrokenSource(t *testing.T) {
	src := "def f(:\n    return $ foo\n"
	p, _ := pysrc.NewParser()
	defer p.Close()
	idx := func(s string) [2]int { i := strings.Index(src, s); return [2]int{i, i + len(s)} }
	got, err := Spans(p, []byte(src), [][2]int{idx("def"), idx("return"), idx("foo")})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] != Keyword || got[1] != Keyword || got[2] != Identifier {
		t.Errorf("classes %v", got)
	}
}

func FuzzSpans(f *testing.F) {
	f.Add("def f(x):\n    return x + 1\n", 0, 3)
	f.Add("x = f'{a!r:>{w}}'\n", 4, 9)
	p, err := pysrc.NewParser()
	if err != nil {
		f.Fatal(err)
	}
	defer p.Close()
	f.Fuzz(func(t *testing.T, src string, a, b int) {
		got, err := Spans(p, []byte(src), [][2]int{{a, b}, {0, len(src)}})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range got {
			if c > Unknown {
				t.Fatalf("class %d", c)
			}
		}
	})
}
