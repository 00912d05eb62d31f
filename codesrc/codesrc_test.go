package codesrc

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// sources are small files of each language with the definitions they
// hold, as "kind name start-end".
var sources = []struct {
	file, src string
	want      []string
}{
	{"a.go", "package a\n\ntype Point struct {\n\tX, Y int\n}\n\nfunc (p Point) Norm() int {\n\treturn p.X*p.X + p.Y*p.Y\n}\n\nfunc New(x, y int) Point { return Point{x, y} }\n",
		[]string{"type Point 3-5", "method Norm 7-9", "function New 11-11"}},
	{"a.js", "export function add(a, b) {\n  return a + b;\n}\nclass Box {\n  open() {\n    return 1;\n  }\n}\nconst twice = (x) => 2 * x;\nconst n = 3;\n",
		[]string{"function add 1-3", "class Box 4-8", "method open 5-7", "variable twice 9-9"}},
	{"a.ts", "interface Shape {\n  area(): number;\n}\ntype Id = string;\nenum Color { Red }\nfunction area(s: Shape): number {\n  return s.area();\n}\n",
		[]string{"interface Shape 1-3", "method area 2-2", "type Id 4-4", "enum Color 5-5", "function area 6-8"}},
	{"a.tsx", "export const View = () => <div>hi</div>;\n", []string{"variable View 1-1"}},
	{"A.java", "public class Account {\n  private int cents;\n  public Account(int c) { cents = c; }\n  public int balance() {\n    return cents;\n  }\n}\n",
		[]string{"class Account 1-7", "constructor Account 3-3", "method balance 4-6"}},
	{"a.rs", "pub struct Stack { items: Vec<i32> }\n\nimpl Stack {\n    pub fn push(&mut self, x: i32) {\n        self.items.push(x);\n    }\n}\n\ntrait Size { fn size(&self) -> usize; }\n",
		[]string{"struct Stack 1-1", "impl Stack 3-7", "function push 4-6", "trait Size 9-9", "function size 9-9"}},
	{"a.c", "struct node { int v; struct node *next; };\n\ntypedef unsigned long ulong;\n\nstatic int *find(struct node *n, int v) {\n  return 0;\n}\n",
		[]string{"struct node 1-1", "type ulong 3-3", "function find 5-7"}},
	{"a.cpp", "namespace geo {\nclass Circle {\n public:\n  double area() const;\n};\n}\ndouble geo::Circle::area() const {\n  return 3.14;\n}\n",
		[]string{"namespace geo 1-6", "class Circle 2-5", "function geo::Circle::area 7-9"}},
	{"a.py", "class A:\n    def f(self):\n        return 1\n", []string{"class A 1-3", "function f 2-3"}},
}

func TestDefinitions(t *testing.T) {
	for _, c := range sources {
		var got []string
		for _, d := range Definitions(c.file, []byte(c.src)) {
			got = append(got, fmt.Sprintf("%s %s %d-%d", d.Kind, d.Name, d.Start, d.End))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.file, got, c.want)
		}
	}
	d := Definitions("a.go", []byte(sources[0].src))
	if d[1].Header != "func (p Point) Norm() int {" {
		t.Errorf("header %q", d[1].Header)
	}
	if Definitions("a.rb", []byte("def f\nend\n")) != nil || Lang("x.RS").Name != "rust" || !Source("x.rb") || Source("x.png") {
		t.Error("languages by extension")
	}
	if g := Globs(); !slices.Contains(g, "*.go") || !slices.Contains(g, "*.rb") || !slices.IsSorted(g) {
		t.Errorf("globs %v", g)
	}
}

// TestSplit cuts where definitions start: no block spans two; a file
// without a grammar is cut into line windows.
func TestSplit(t *testing.T) {
	for _, c := range sources {
		starts := map[int]bool{}
		lines := strings.Split(c.src, "\n")
		for _, d := range Definitions(c.file, []byte(c.src)) {
			starts[leading(lines, d.Start)] = true
		}
		for _, b := range Split(c.file, []byte(c.src)) {
			for l := b.Start + 1; l <= b.End; l++ {
				if starts[l] {
					t.Errorf("%s: block %d-%d runs into the definition at %d", c.file, b.Start, b.End, l)
				}
			}
			if first := strings.SplitN(b.Text, "\n", 2)[0]; first != lines[b.Start-1] {
				t.Errorf("%s: block at %d starts %q, the line is %q", c.file, b.Start, first, lines[b.Start-1])
			}
		}
	}
	doc := "package a\n\nvar x = 1\n// F is f.\n// It is.\nfunc F() {}\n"
	if b := Split("a.go", []byte(doc)); len(b) != 2 || b[1].Start != 4 || !strings.HasPrefix(b[1].Text, "// F is f.") {
		t.Errorf("a definition's comment: %+v", b)
	}
	var rb strings.Builder
	for i := range 30 {
		fmt.Fprintf(&rb, "puts %d\n", i)
	}
	blocks := Split("a.rb", []byte(rb.String()))
	if len(blocks) != 3 || blocks[1].Start != 1 || blocks[1].End != 20 {
		t.Errorf("windows %+v", blocks)
	}
}
