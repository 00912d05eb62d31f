package dataset

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"actor/pysrc"
)

// LocateIn finds the task's function in the repository at root: the file
// (File, else the module's file) and the function's def-to-last-line span,
// filling File, Line and EndLine. The function is read with pysrc, the
// parser generation uses, and picked as pick says.
func (t *Task) LocateIn(root string) error {
	_, err := t.Function(root)
	return err
}

// Function is LocateIn, returning the function as pysrc reads it
// (retrieve.TaskTarget makes it a generation target).
func (t *Task) Function(root string) (pysrc.Function, error) {
	if t.File == "" {
		if t.Module == "" {
			return pysrc.Function{}, fmt.Errorf("task %s names neither a file nor a module", t.ID)
		}
		f, err := pysrc.ModuleFile(root, t.Module)
		if err != nil {
			return pysrc.Function{}, fmt.Errorf("task %s: %w", t.ID, err)
		}
		t.File = f
	}
	rel := filepath.ToSlash(filepath.Clean(t.File))
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return pysrc.Function{}, fmt.Errorf("task %s: %w", t.ID, err)
	}
	f, err := pysrc.Parse(src)
	if err != nil {
		return pysrc.Function{}, fmt.Errorf("task %s: %s: %w", t.ID, rel, err)
	}
	defer f.Close()
	fn, err := t.pick(f)
	if err != nil {
		return pysrc.Function{}, fmt.Errorf("task %s: %s: %w", t.ID, rel, err)
	}
	t.Line, t.EndLine = fn.Start, fn.End
	return fn, nil
}

// pick chooses the task's function among the file's definitions of its
// name (of any name when the task gives none): the one whose source is the
// gold function (up to indentation), else the one whose def is at DefLine,
// else the innermost one holding the Line hint, else the only one, else
// the only top-level one.
func (t *Task) pick(f *pysrc.File) (pysrc.Function, error) {
	var named []pysrc.Function
	for _, fn := range f.Functions() {
		if t.EntryPoint == "" || fn.Name == t.EntryPoint {
			named = append(named, fn)
		}
	}
	if gold := normalize(t.Gold); gold != "" {
		for _, fn := range named {
			if normalize(fn.Source) == gold {
				return fn, nil
			}
		}
	}
	for _, fn := range named {
		if t.DefLine > 0 && fn.Start == t.DefLine {
			return fn, nil
		}
	}
	var inner *pysrc.Function
	for _, fn := range named {
		if t.Line > 0 && fn.DeclStart <= t.Line && t.Line <= fn.End && (inner == nil || fn.Start >= inner.Start) {
			inner = &fn
		}
	}
	switch {
	case inner != nil:
		return *inner, nil
	case t.EntryPoint == "":
		return pysrc.Function{}, fmt.Errorf("no function at line %d", max(t.Line, t.DefLine))
	case len(named) == 0:
		return pysrc.Function{}, fmt.Errorf("function %s not found", t.EntryPoint)
	case len(named) == 1:
		return named[0], nil
	}
	var top []pysrc.Function
	for _, fn := range named {
		if indent(fn.Source) == 0 {
			top = append(top, fn)
		}
	}
	if len(top) == 1 {
		return top[0], nil
	}
	return pysrc.Function{}, fmt.Errorf("%d functions named %s and none is the gold one", len(named), t.EntryPoint)
}

// normalize removes the first line's indentation from every line of a
// function's source and trims it, so a method compares with its dedented
// gold text.
func normalize(src string) string {
	src = strings.TrimLeft(src, "\n")
	ind := src[:indent(src)]
	if ind != "" {
		lines := strings.Split(src, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimPrefix(l, ind)
		}
		src = strings.Join(lines, "\n")
	}
	return strings.TrimSpace(src)
}
