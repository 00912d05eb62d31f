// Package symbols resolves, statically, the names a Python file of a
// repository sees: what it imports (relative and absolute imports, aliases,
// packages' __init__ re-exports, star imports), what the module itself
// defines, and an enclosing class's members and bases. Generation shows the
// definitions in scope to the model (symbol context) and looks up the
// definitions that extend a partly written name (ACToR's name lookup). It
// reads the repository as it is on disk, never a benchmark's annotations.
package symbols

import (
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"

	"actor/pysrc"
)

// Def is a definition in the repository.
type Def struct {
	// Name is the definition's own name; Class the class whose body holds
	// it ("" at module level).
	Name, Class string
	// Kind is "def", "class" or "assign".
	Kind string
	// Path is the file, slash-separated, relative to the repository; Start
	// and End its 1-based lines, decorators included.
	Path       string
	Start, End int
	// Bases are a class's base class expressions as written.
	Bases []string
	// Summary is the signature and docstring (pysrc.File.Summary); Source
	// the whole definition; Signature its one line (pysrc.File.Signature).
	Summary, Source, Signature string
}

// Qualified is Class.Name for members, Name otherwise.
func (d Def) Qualified() string {
	if d.Class != "" {
		return d.Class + "." + d.Name
	}
	return d.Name
}

func (d Def) key() string { return d.Path + ":" + strconv.Itoa(d.Start) + ":" + d.Qualified() }

// Table is a repository's Python modules, parsed on first use. It is safe
// for concurrent use.
type Table struct {
	files map[string][]byte // .py files by path

	mu   sync.Mutex
	mods map[string]*module
}

// module is one parsed file: its definitions and import bindings.
type module struct {
	path    string
	defs    []Def
	imports []pysrc.Import
}

// New returns the table of a repository's files (path → content, paths
// slash-separated and relative to the repository); files that are not
// Python are ignored.
func New(files map[string][]byte) *Table {
	py := make(map[string][]byte, len(files))
	for p, b := range files {
		if strings.HasSuffix(p, ".py") {
			py[p] = b
		}
	}
	return &Table{files: py, mods: map[string]*module{}}
}

// module parses the file p (nil when the table has no such file).
func (t *Table) module(p string) *module {
	t.mu.Lock()
	defer t.mu.Unlock()
	if m, ok := t.mods[p]; ok {
		return m
	}
	src, ok := t.files[p]
	if !ok {
		return nil
	}
	m := &module{path: p}
	t.mods[p] = m
	f, err := pysrc.Parse(src)
	if err != nil {
		return m
	}
	defer f.Close()
	for _, d := range f.Definitions() {
		m.defs = append(m.defs, Def{Name: d.Name, Class: d.Class, Kind: d.Kind, Path: p, Start: d.Start, End: d.End,
			Bases: d.Bases, Summary: f.Summary(d), Source: f.Source(d), Signature: f.Signature(d)})
	}
	m.imports = f.Imports()
	return m
}

// paths lists the table's files in order.
func (t *Table) paths() []string {
	out := make([]string, 0, len(t.files))
	for p := range t.files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// moduleFile finds the file of the dotted module parts under the source
// root dir ("" for the repository's root): dir/a/b.py, else
// dir/a/b/__init__.py.
func (t *Table) moduleFile(dir string, parts []string) (string, bool) {
	base := path.Join(append([]string{dir}, parts...)...)
	for _, p := range []string{base + ".py", base + "/__init__.py"} {
		if _, ok := t.files[p]; ok {
			return p, true
		}
	}
	return "", false
}

// resolveModule finds the file a module name imported from file `from`
// refers to. A relative name (leading dots) counts from the importing
// file's package; an absolute one is looked for under the repository's root
// and then under each folder above the importing file, shallowest first
// (projects kept under src/ or a sub-folder).
func (t *Table) resolveModule(from, name string) (string, bool) {
	dots := len(name) - len(strings.TrimLeft(name, "."))
	rest := strings.TrimLeft(name, ".")
	var parts []string
	if rest != "" {
		parts = strings.Split(rest, ".")
	}
	dir := path.Dir(from)
	if dir == "." {
		dir = ""
	}
	if dots > 0 {
		for range dots - 1 {
			if dir == "" {
				return "", false
			}
			dir = path.Dir(dir)
			if dir == "." {
				dir = ""
			}
		}
		if len(parts) == 0 {
			init := path.Join(dir, "__init__.py")
			_, ok := t.files[init]
			return init, ok
		}
		return t.moduleFile(dir, parts)
	}
	if len(parts) == 0 {
		return "", false
	}
	roots := []string{""}
	if dir != "" {
		segs := strings.Split(dir, "/")
		for i := 1; i <= len(segs); i++ {
			roots = append(roots, strings.Join(segs[:i], "/"))
		}
	}
	for _, r := range roots {
		if p, ok := t.moduleFile(r, parts); ok {
			return p, true
		}
	}
	return "", false
}

// binding is what a name resolves to: a definition or a module.
type binding struct {
	def    *Def
	module string // a module's file, when the name is a module
}

// resolve finds what name means in the module file p: its own last
// module-level definition of the name, else what an import binds it to
// (followed through re-exports), else a submodule of a package, else what
// a star import brings. depth bounds the chains of re-exports.
func (t *Table) resolve(p, name string, depth int) (binding, bool) {
	m := t.module(p)
	if m == nil || depth > 6 {
		return binding{}, false
	}
	for i := len(m.defs) - 1; i >= 0; i-- {
		if d := &m.defs[i]; d.Class == "" && d.Name == name {
			return binding{def: d}, true
		}
	}
	for i := len(m.imports) - 1; i >= 0; i-- {
		im := m.imports[i]
		if im.Bound != name {
			continue
		}
		if b, ok := t.importBinding(p, im, depth); ok {
			return b, true
		}
	}
	if path.Base(p) == "__init__.py" {
		if sub, ok := t.moduleFile(path.Dir(p), []string{name}); ok {
			return binding{module: sub}, true
		}
	}
	for _, im := range m.imports {
		if im.Name != "*" {
			continue
		}
		if src, ok := t.resolveModule(p, im.Module); ok && src != p {
			if b, ok := t.resolve(src, name, depth+1); ok && public(name) {
				return b, true
			}
		}
	}
	return binding{}, false
}

// importBinding resolves one import binding of file p.
func (t *Table) importBinding(p string, im pysrc.Import, depth int) (binding, bool) {
	if im.Name == "" { // import a.b as m: m is a.b; import a.b: a is a
		mod := im.Module
		if im.Bound != mod && !strings.Contains(im.Bound, ".") && strings.HasPrefix(mod, im.Bound+".") {
			mod = im.Bound
		}
		if src, ok := t.resolveModule(p, mod); ok {
			return binding{module: src}, true
		}
		return binding{}, false
	}
	src, ok := t.resolveModule(p, im.Module)
	if !ok { // a namespace package (no __init__.py): from pkg import submodule
		sub := im.Module + "." + im.Name
		if strings.HasSuffix(im.Module, ".") {
			sub = im.Module + im.Name
		}
		if src, ok := t.resolveModule(p, sub); ok {
			return binding{module: src}, true
		}
		return binding{}, false
	}
	if src != p {
		if b, ok := t.resolve(src, im.Name, depth+1); ok {
			return b, true
		}
	}
	// from package import submodule
	if path.Base(src) == "__init__.py" {
		if sub, ok := t.moduleFile(path.Dir(src), []string{im.Name}); ok {
			return binding{module: sub}, true
		}
	}
	return binding{}, false
}

// public reports whether a star import brings name (no leading underscore;
// __all__ is not read).
func public(name string) bool { return !strings.HasPrefix(name, "_") }

// members returns the members of class c (its own, then its bases',
// resolved from c's file, nearest base first), without repeats of a name.
func (t *Table) members(c *Def, depth int) []Def {
	m := t.module(c.Path)
	if m == nil || depth > 6 {
		return nil
	}
	var out []Def
	seen := map[string]bool{}
	for _, d := range m.defs {
		if d.Class == c.Name && d.Start >= c.Start && d.End <= c.End && !seen[d.Name] {
			out, seen[d.Name] = append(out, d), true
		}
	}
	for _, b := range c.Bases {
		bb, ok := t.resolveDotted(c.Path, b, depth+1)
		if !ok || bb.def == nil || bb.def.Kind != "class" {
			continue
		}
		for _, d := range t.members(bb.def, depth+1) {
			if !seen[d.Name] {
				out, seen[d.Name] = append(out, d), true
			}
		}
	}
	return out
}

// resolveDotted resolves a dotted expression (a, a.b, a.b.C) in file p.
func (t *Table) resolveDotted(p, expr string, depth int) (binding, bool) {
	parts := strings.Split(expr, ".")
	b, ok := t.resolve(p, parts[0], depth)
	for _, part := range parts[1:] {
		if !ok || b.module == "" {
			return binding{}, false
		}
		b, ok = t.resolve(b.module, part, depth+1)
	}
	return b, ok
}
