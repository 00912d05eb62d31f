package infill

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"actor/internal/testsupport"
	"actor/symbols"
)

// inventory reads examples/inventory as a served repository.
func inventory(t *testing.T) (*Repository, map[string][]byte) {
	t.Helper()
	root := testsupport.Fixture(t, "examples/inventory")
	files := map[string][]byte{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".py") {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			files[filepath.ToSlash(rel)] = b
		}
		return nil
	})
	return NewRepository("inventory", files, symbols.New(files)), files
}

// around cuts a file's text at the start of a line (1-based), as the
// plugins do: the lines above, and the line with the ones below.
func around(src []byte, line int) (prefix, suffix string) {
	lines := strings.SplitAfter(string(src), "\n")
	return strings.Join(lines[:line-1], ""), "\n" + strings.Join(lines[line:], "")
}

// TestFilesFind finds the file and the line of a cursor from the text
// around it, and refuses text that is in no file or in two.
func TestFilesFind(t *testing.T) {
	r, files := inventory(t)
	prefix, suffix := around(files["inventory/report.py"], 8)
	if m, ok := r.Files.Find(prefix, suffix); !ok || m.Path != "inventory/report.py" || m.Line != 8 {
		t.Errorf("found %+v (%v), want inventory/report.py:8", m, ok)
	}
	// edited text: a line typed above the cursor, the cursor's line moved
	edited := strings.Replace(prefix, "from .stock import Item, in_stock\n", "from .stock import Item, in_stock\nimport sys\n", 1)
	if m, ok := r.Files.Find(edited, suffix); !ok || m.Path != "inventory/report.py" || m.Line != 8 {
		t.Errorf("edited: found %+v (%v)", m, ok)
	}
	if line := r.Files.Line("inventory/report.py", prefix, suffix); line != 8 {
		t.Errorf("Line: %d", line)
	}
	if _, ok := r.Files.Find("nothing = 'here at all'\nreally_nothing()\n", "\n"); ok {
		t.Error("found a file for text in none")
	}
	// three common lines among fourteen voting ones do not make a file the cursor's
	other := NewFiles(map[string][]byte{"flag.js": []byte("  if (a) {\n    return false;\n  } else {\n    return true;\n  }\n")})
	var rust strings.Builder
	rust.WriteString("    if a {\n        return false;\n    } else {\n        return true;\n    }\n")
	for i := range 10 {
		fmt.Fprintf(&rust, "    let value_%d = compute(%d);\n", i, i)
	}
	if m, ok := other.Find(rust.String(), "\n"); ok {
		t.Errorf("found %+v for text a quarter of whose lines are in no file", m)
	}
	if m, ok := other.Find("    if a {\n        return false;\n    } else {\n        return true;\n", "\n"); !ok || m.Path != "flag.js" {
		t.Errorf("the same lines alone: %+v %v", m, ok)
	}
	twins := NewFiles(map[string][]byte{"a.py": []byte("value = compute()\nresult = value\n"), "b.py": []byte("value = compute()\nresult = value\n")})
	if _, ok := twins.Find("value = compute()\nresult = value\n", "\n"); ok {
		t.Error("chose one of two files with the same lines")
	}
}

// TestRepositoryContext: at the cursor in report.py's stock_value, the
// definitions the file imports and the blocks retrieved for the lines
// above, none of what the editor's text shows.
func TestRepositoryContext(t *testing.T) {
	tok := qwen(t)
	r, files := inventory(t)
	prefix, _ := around(files["inventory/report.py"], 8)
	cur := Cursor{Path: "inventory/report.py", Line: 8, Above: 7, Below: 7, Prefix: prefix}
	chunks, err := r.Context(tok, cur, DefaultContextBudget)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	sources := map[string]int{}
	for _, c := range chunks {
		sources[c.Source]++
		text.WriteString(c.Path + "\n" + c.Text)
		if c.Path == "inventory/report.py" {
			t.Errorf("a chunk of the cursor's own file, which the editor shows: %q", c.Text)
		}
	}
	for _, want := range []string{"def in_stock(items: list) -> list:", "def format_price(cents: int) -> str:", "class Item:"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the context lacks %q", want)
		}
	}
	if sources[SourceSymbol] == 0 || sources[SourceBlock] == 0 {
		t.Errorf("sources %v", sources)
	}
	// Another line of the same function, other lines above it: the same
	// chunks (kept for the region); another function: made anew.
	later := cur
	later.Line, later.Prefix = 7, "zebra = quokka(narwhal)\n"
	again, _ := r.Context(tok, later, DefaultContextBudget)
	if len(again) != len(chunks) {
		t.Fatalf("%d chunks, then %d", len(chunks), len(again))
	}
	for i := range again {
		if again[i] != chunks[i] {
			t.Errorf("chunk %d changed", i)
		}
	}
	if r.region("inventory/report.py", 8) != 6 || r.region("inventory/report.py", 13) != 11 || r.region("inventory/report.py", 2) >= 0 {
		t.Errorf("regions %d %d %d", r.region("inventory/report.py", 8), r.region("inventory/report.py", 13), r.region("inventory/report.py", 2))
	}
	none, _ := r.Context(tok, cur, ContextBudget{})
	if len(none) != 0 {
		t.Errorf("no budget, %d chunks", len(none))
	}
}

// TestRepositoryContextAnyLanguage: in a Go file the definitions of the
// names the lines above the cursor use, from the repository's other
// files, whole when short; blocks of other languages are retrieved too.
func TestRepositoryContextAnyLanguage(t *testing.T) {
	tok := qwen(t)
	files := map[string][]byte{
		"geo/point.go": []byte("package geo\n\n// Point is a place on the plane.\ntype Point struct {\n\tX, Y float64\n}\n\n" +
			"// Distance is how far p is from q.\nfunc Distance(p, q Point) float64 {\n\treturn math.Hypot(p.X-q.X, p.Y-q.Y)\n}\n"),
		"geo/route.go": []byte("package geo\n\n// Length sums the legs of a route.\nfunc Length(route []Point) float64 {\n\ttotal := 0.0\n" +
			"\tfor i := 1; i < len(route); i++ {\n\t\ttotal += Distance(route[i-1], route[i])\n\t}\n\treturn total\n}\n"),
		"web/map.js":   []byte("export function drawRoute(route) {\n  return route.map((p) => [p.X, p.Y]);\n}\n"),
		"geo/names.go": []byte("package geo\n\nfunc (p Point) String() string { return \"point\" }\n\ntype float64 struct{}\n"),
	}
	r := NewRepository("geo", files, symbols.New(files))
	prefix, _ := around(files["geo/route.go"], 8)
	chunks, err := r.Context(tok, Cursor{Path: "geo/route.go", Line: 8, Above: 7, Below: 3, Prefix: prefix}, DefaultContextBudget)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, c := range chunks {
		text.WriteString(c.Source + " " + c.Path + "\n" + c.Text)
	}
	for _, want := range []string{"symbol geo/point.go\ntype Point struct {\n\tX, Y float64\n}", "symbol geo/point.go\nfunc Distance(p, q Point) float64 {"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the context lacks %q:\n%s", want, text.String())
		}
	}
	if strings.Contains(text.String(), "symbol geo/names.go") {
		t.Errorf("a built-in name was looked up:\n%s", text.String())
	}
	if strings.Contains(text.String(), "func Length") {
		t.Errorf("the editor's own definition came back:\n%s", text.String())
	}
	blocks := 0
	for _, b := range r.Corpus.Blocks {
		if b.Path == "web/map.js" {
			blocks++
		}
	}
	if blocks == 0 {
		t.Error("no blocks of the JavaScript file")
	}
}

// TestRequery: the context made again with the text written after the
// cursor looks up the names that text uses (here Distance, which the
// lines above do not name: a definition chunk, not only a retrieved
// block), and is not kept for the region.
func TestRequery(t *testing.T) {
	tok := qwen(t)
	files := map[string][]byte{
		"geo/point.go": []byte("package geo\n\n// Point is a place on the plane.\ntype Point struct {\n\tX, Y float64\n}\n\n" +
			"// Distance is how far p is from q.\nfunc Distance(p, q Point) float64 {\n\treturn math.Hypot(p.X-q.X, p.Y-q.Y)\n}\n"),
		"geo/route.go": []byte("package geo\n\n// Length sums the legs of a route.\nfunc Length(route []int) float64 {\n\ttotal := 0.0\n\treturn total\n}\n"),
	}
	r := NewRepository("geo", files, symbols.New(files))
	prefix, _ := around(files["geo/route.go"], 6)
	c := Cursor{Path: "geo/route.go", Line: 6, Above: 5, Below: 2, Prefix: prefix}
	has := func(chunks []Chunk, text string) bool {
		for _, ch := range chunks {
			if ch.Source == SourceSymbol && strings.Contains(ch.Text, text) {
				return true
			}
		}
		return false
	}
	before, err := r.Context(tok, c, DefaultContextBudget)
	if err != nil {
		t.Fatal(err)
	}
	after, err := r.Requery(tok, c, "\ttotal += Distance(", DefaultContextBudget)
	if err != nil {
		t.Fatal(err)
	}
	if has(before, "func Distance") || !has(after, "func Distance(p, q Point) float64 {") {
		t.Errorf("Distance before the text: %v, after: %v", has(before, "func Distance"), has(after, "func Distance"))
	}
	if kept, _ := r.Context(tok, c, DefaultContextBudget); has(kept, "func Distance") {
		t.Error("Requery's context was kept for the region")
	}
}

// TestShownContext: lines the editor sent that the prompt cuts are not
// shown, so the repository's context may hold them: a helper far above
// the cursor, in the same file, comes back as a definition when the
// prompt's prefix budget cuts it, not when the prompt shows it.
func TestShownContext(t *testing.T) {
	tok := qwen(t)
	var src strings.Builder
	src.WriteString("package geo\n\n// scale converts feet to metres.\nfunc scale(v float64) float64 {\n\treturn v * 0.3048\n}\n\n" +
		"// Total sums the legs in metres.\nfunc Total(legs []float64) float64 {\n\ttotal := 0.0\n")
	for i := range 80 {
		fmt.Fprintf(&src, "\tlegs[%d] = scale(legs[%d])\n", i, i)
	}
	src.WriteString("\tfor _, l := range legs {\n\t\ttotal += l\n\t}\n\treturn total\n}\n")
	files := map[string][]byte{"geo/route.go": []byte(src.String())}
	line := 10 + 80 + 1
	prefix, suffix := around(files["geo/route.go"], line)
	whole := Cursor{Path: "geo/route.go", Line: line, Prefix: prefix, Suffix: suffix,
		Above: strings.Count(prefix, "\n"), Below: strings.Count(suffix, "\n") - 1}
	if got := whole.Shown(tok, "", BatchBudget(2048, 4096, 128)); got != whole {
		t.Errorf("nothing is cut, yet the cursor changed: %+v", got)
	}
	// Above and Below count the file's whole lines in the text kept, for
	// every budget from 150 to 260 tokens (some cut at a line's start)
	lines := strings.SplitAfter(src.String(), "\n")
	above, below := lines[:line-1], lines[line:]
	for n := 150; n <= 260; n++ {
		c := whole.Shown(tok, "\t", Budget{Prefix: n, Suffix: n / 10})
		if len(tok.Encode(c.Prefix, false)) != n || !strings.HasSuffix(prefix, c.Prefix) ||
			!strings.HasSuffix(c.Prefix, strings.Join(above[len(above)-c.Above:], "")) ||
			strings.HasSuffix(c.Prefix, strings.Join(above[len(above)-c.Above-1:], "")) {
			t.Fatalf("prefix budget %d: %d whole lines counted in %q", n, c.Above, c.Prefix)
		}
		if c.Suffix == suffix { // not cut
			continue
		}
		if !strings.HasPrefix(suffix, c.Suffix) || !strings.HasPrefix(c.Suffix, "\n"+strings.Join(below[:c.Below], "")) ||
			strings.HasPrefix(c.Suffix, "\n"+strings.Join(below[:c.Below+1], "")) {
			t.Fatalf("suffix budget %d: %d whole lines counted in %q", n/10, c.Below, c.Suffix)
		}
	}
	shown := whole.Shown(tok, "\t", Budget{Prefix: 200, Suffix: 12})
	helper := func(c Cursor) bool {
		r := NewRepository("geo", files, symbols.New(files)) // a new one: contexts are kept per region
		chunks, err := r.Context(tok, c, DefaultContextBudget)
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range chunks {
			if strings.Contains(ch.Text, "func scale(v float64) float64 {") {
				return true
			}
		}
		return false
	}
	if helper(whole) || !helper(shown) {
		t.Errorf("the helper in the context: shown whole %v, cut %v; want false, true", helper(whole), helper(shown))
	}
}

// TestSimilar: a block whose lines are mostly around the cursor is left
// out of the context.
func TestSimilar(t *testing.T) {
	near := nearLines("a = 1\nb = 2\n  c = 3\n", "\nd = 4\n")
	if !similar("a = 1\n\nc = 3\nx = 9", near) || similar("a = 1\nx = 9\ny = 8", near) || similar("", near) {
		t.Error("similar")
	}
}
