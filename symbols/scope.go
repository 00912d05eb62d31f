package symbols

import (
	"regexp"
	"sort"
	"strings"
)

// Found is a definition in scope of a target function and how the
// target's file reaches it.
type Found struct {
	Def
	// Bound is the name the target's file uses for it (an import's alias,
	// "self.name" for members of the enclosing class).
	Bound string
	// Via is "import", "import *", "module" (the file's own definition),
	// "class" (a member of the enclosing class or its bases) or "lookup"
	// (a name lookup's match).
	Via string
	// Line is where the file binds it (the import's or the definition's
	// line; the target's own line for class members): nearness ranks by it.
	Line int
}

// Why says in a few words why the definition is shown.
func (f Found) Why() string {
	switch f.Via {
	case "import", "import *":
		return "imported as " + f.Bound
	case "class":
		return "member of the enclosing class"
	case "module":
		return "defined in the target's module"
	}
	return f.Via + " " + f.Bound
}

// Target is the function whose scope is asked for: its file, its lines and
// its prompt (signature and docstring, which ranks the definitions).
type Target struct {
	Path       string
	Start, End int    // 1-based lines of the whole definition
	Class      string // the enclosing class ("" for a module-level function)
	Prompt     string
}

// Locate describes the function of file path whose definition spans lines
// start (its first decorator) to end, with its prompt: the enclosing class
// is read from the file.
func (t *Table) Locate(path string, start, end int, prompt string) Target {
	tg := Target{Path: path, Start: start, End: end, Prompt: prompt}
	if m := t.module(path); m != nil {
		for _, d := range m.defs {
			if d.Kind == "def" && d.Start == start {
				tg.Class = d.Class
			}
		}
	}
	return tg
}

// File returns the content of a Python file of the table.
func (t *Table) File(path string) ([]byte, bool) {
	b, ok := t.files[path]
	return b, ok
}

// hides reports whether d lies inside the target (its own lines are never
// shown).
func (tg Target) hides(d Def) bool {
	return d.Path == tg.Path && d.Start <= tg.End && d.End >= tg.Start
}

// InScope returns the definitions the target's file can name, ranked: those
// the target's signature or docstring mention first, then by nearness to
// the target (the line where the file binds them: members of the enclosing
// class, then imports and module definitions by distance). Each definition
// comes once, under the first name that reaches it.
func (t *Table) InScope(tg Target) []Found {
	m := t.module(tg.Path)
	if m == nil {
		return nil
	}
	var out []Found
	seen := map[string]bool{}
	add := func(f Found) {
		if k := f.key(); !seen[k] && !tg.hides(f.Def) {
			seen[k] = true
			out = append(out, f)
		}
	}
	if c := t.enclosing(m, tg); c != nil {
		for _, d := range t.members(c, 0) {
			add(Found{Def: d, Bound: "self." + d.Name, Via: "class", Line: tg.Start})
		}
	}
	for _, im := range m.imports {
		switch {
		case im.Name == "*":
			src, ok := t.resolveModule(tg.Path, im.Module)
			if !ok || src == tg.Path {
				continue
			}
			for _, d := range t.module(src).topLevel() {
				if public(d.Name) {
					add(Found{Def: d, Bound: d.Name, Via: "import *", Line: im.Line})
				}
			}
		case im.Name != "":
			if b, ok := t.importBinding(tg.Path, im, 0); ok && b.def != nil {
				add(Found{Def: *b.def, Bound: im.Bound, Via: "import", Line: im.Line})
			}
		}
	}
	for _, d := range m.topLevel() {
		add(Found{Def: d, Bound: d.Name, Via: "module", Line: d.Start})
	}
	rank(out, tg)
	return out
}

// rank orders definitions: mentioned in the prompt first, then nearest.
func rank(fs []Found, tg Target) {
	words := wordSet(tg.Prompt)
	dist := func(f Found) int {
		if f.Line >= tg.Start {
			return f.Line - tg.End
		}
		return tg.Start - f.Line
	}
	mentioned := func(f Found) bool { return words[f.Name] || words[strings.TrimPrefix(f.Bound, "self.")] }
	sort.SliceStable(fs, func(i, j int) bool {
		mi, mj := mentioned(fs[i]), mentioned(fs[j])
		if mi != mj {
			return mi
		}
		return dist(fs[i]) < dist(fs[j])
	})
}

var word = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

func wordSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range word.FindAllString(s, -1) {
		out[w] = true
	}
	return out
}

// enclosing returns the class whose body holds the target, if any.
func (t *Table) enclosing(m *module, tg Target) *Def {
	if tg.Class == "" {
		return nil
	}
	var best *Def
	for i := range m.defs {
		d := &m.defs[i]
		if d.Kind == "class" && d.Name == tg.Class && d.Start <= tg.Start && tg.End <= d.End {
			best = d
		}
	}
	return best
}

// MaxLookup bounds the definitions one name lookup returns.
const MaxLookup = 8

// Lookup returns the definitions whose names extend partial, a name being
// written in the target's body, as seen through receiver, the dotted
// expression before it ("" for a bare name): "self" or "cls" → the enclosing
// class and its bases; a name bound to a module → that module's
// definitions; a name bound to a class → its members; a bare name → the
// names in scope first, then every module-level definition of the
// repository; any other receiver → the members of every class in the
// repository (partial of two characters at least). At most MaxLookup,
// in that order; the target itself is never returned.
func (t *Table) Lookup(tg Target, receiver, partial string) []Found {
	m := t.module(tg.Path)
	if m == nil {
		return nil
	}
	var out []Found
	seen := map[string]bool{}
	add := func(d Def, bound string) bool {
		if k := d.key(); !seen[k] && !tg.hides(d) && strings.HasPrefix(bound, partial) {
			seen[k] = true
			out = append(out, Found{Def: d, Bound: receiverDot(receiver) + bound, Via: "lookup", Line: tg.Start})
		}
		return len(out) >= MaxLookup
	}
	addAll := func(ds []Def) {
		for _, d := range ds {
			if add(d, d.Name) {
				return
			}
		}
	}
	switch {
	case receiver == "self" || receiver == "cls":
		if c := t.enclosing(m, tg); c != nil {
			addAll(t.members(c, 0))
		}
	case receiver == "":
		for _, f := range t.InScope(tg) {
			if add(f.Def, f.Bound) {
				return out
			}
		}
		for _, p := range t.paths() {
			addAll(t.module(p).topLevel())
			if len(out) >= MaxLookup {
				break
			}
		}
	default:
		b, ok := t.resolveDotted(tg.Path, receiver, 0)
		switch {
		case ok && b.module != "":
			addAll(t.module(b.module).topLevel())
		case ok && b.def != nil && b.def.Kind == "class":
			addAll(t.members(b.def, 0))
		case len(partial) >= 2:
			for _, p := range t.paths() {
				var members []Def
				for _, d := range t.module(p).defs {
					if d.Class != "" {
						members = append(members, d)
					}
				}
				addAll(members)
				if len(out) >= MaxLookup {
					break
				}
			}
		}
	}
	return out
}

func receiverDot(r string) string {
	if r == "" {
		return ""
	}
	return r + "."
}

// topLevel returns the module-level definitions, the last of each name
// (the one Python leaves bound), in source order.
func (m *module) topLevel() []Def {
	last := map[string]int{}
	for i, d := range m.defs {
		if d.Class == "" {
			last[d.Name] = i
		}
	}
	var out []Def
	for i, d := range m.defs {
		if d.Class == "" && last[d.Name] == i {
			out = append(out, d)
		}
	}
	return out
}
