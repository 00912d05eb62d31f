package dataset

import (
	"fmt"
	"strings"

	"actor/pysrc"
	"actor/retrieve"
)

// LocateIn finds the task's function in the repository at root: the file
// (File, else the module's file) and the function's def-to-last-line span,
// filling File, Line and EndLine. The function is read with pysrc, the
// parser generation uses, and picked as pick says.
func (t *Task) LocateIn(root string) error {
	_, err := t.locate(root)
	return err
}

// locate is LocateIn, returning the function as a retrieve.Target.
func (t *Task) locate(root string) (retrieve.Target, error) {
	if t.File == "" {
		if t.Module == "" {
			return retrieve.Target{}, fmt.Errorf("task %s names neither a file nor a module", t.ID)
		}
		f, err := pysrc.ModuleFile(root, t.Module)
		if err != nil {
			return retrieve.Target{}, fmt.Errorf("task %s: %w", t.ID, err)
		}
		t.File = f
	}
	tg, err := retrieve.Locate(root, t.File, t.pick)
	if err != nil {
		return retrieve.Target{}, fmt.Errorf("task %s: %w", t.ID, err)
	}
	t.Line, t.EndLine = tg.Function.Start, tg.Function.End
	return tg, nil
}

// GenerationTarget locates the task in the repository at root and returns
// it as generation writes it: the task's prompt (else the file's signature
// and docstring) and the exclusion rule, whose start is the task's
// context_start_lineno when the row gives one (the authors compare a
// block's 1-based end line with that 0-based number; kept exactly).
func (t *Task) GenerationTarget(root string) (retrieve.Target, error) {
	tg, err := t.locate(root)
	if err != nil {
		return retrieve.Target{}, err
	}
	tg.ID, tg.Prompt = t.ID, first(t.Prompt, tg.Prompt)
	if t.DefLine > 0 {
		tg.Exclusion.StartLine = t.DefLine - 1
	}
	return tg, nil
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
