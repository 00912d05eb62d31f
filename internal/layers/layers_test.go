// Package layers holds the test that keeps the packages on the floors
// docs/ARCHITECTURE.md draws: a package imports only packages on its own
// floor or below (and internal/...). The floors are read from that page's
// table, so the map and the code cannot drift apart.
package layers

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// floorRow is a row of the table: "| floor | `pkg`, `pkg/...` | what |".
var floorRow = regexp.MustCompile("^\\| ([a-z-]+) \\| ((?:`[a-z0-9/.]+`(?:, )?)+) \\|")

// floors reads the table of docs/ARCHITECTURE.md: package patterns (a
// path, or a path/... for it and every package below) to floor numbers,
// lowest first.
func floors(t *testing.T, root string) map[string]int {
	f, err := os.Open(filepath.Join(root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int{}
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := floorRow.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		for _, p := range strings.Split(m[2], ", ") {
			out[strings.Trim(p, "`")] = n
		}
		n++
	}
	if n < 5 {
		t.Fatalf("docs/ARCHITECTURE.md: found %d floors in its table", n)
	}
	return out
}

// floorOf is the floor of package path (relative to the module), -1 for
// one the table does not place.
func floorOf(fl map[string]int, path string) int {
	if n, ok := fl[path]; ok {
		return n
	}
	for p, n := range fl {
		if base, ok := strings.CutSuffix(p, "/..."); ok && (path == base || strings.HasPrefix(path, base+"/")) {
			return n
		}
	}
	return -1
}

// TestFloors: every package but internal/... and scripts/... is on a
// floor, and imports no package of a higher one.
func TestFloors(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	fl := floors(t, root)
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		path, ok := strings.CutPrefix(p.ImportPath, "actor/")
		if !ok || strings.HasPrefix(path, "internal/") || strings.HasPrefix(path, "scripts/") {
			continue
		}
		seen++
		own := floorOf(fl, path)
		if own < 0 {
			t.Errorf("%s is on no floor of docs/ARCHITECTURE.md's table", path)
			continue
		}
		for _, imp := range p.Imports {
			dep, ok := strings.CutPrefix(imp, "actor/")
			if !ok || strings.HasPrefix(dep, "internal/") {
				continue
			}
			if n := floorOf(fl, dep); n > own {
				t.Errorf("%s (floor %d) imports %s (floor %d): a lower floor imports a higher one", path, own, dep, n)
			}
		}
	}
	if seen < 20 {
		t.Fatalf("go list gave %d packages of the module", seen)
	}
}
