package retrieve

import (
	"errors"
	"strings"
	"testing"

	"actor/internal/testsupport"
	"actor/pysrc"
)

func TestAtLine(t *testing.T) {
	repo := t.TempDir()
	testsupport.WriteFile(t, repo, "pkg/mod.py", "import os\n\n@decorate\ndef g():\n    \"\"\"G doc.\"\"\"\n    return 2\n")
	tg, err := AtLine(repo, "pkg/./mod.py", 6)
	if err != nil {
		t.Fatal(err)
	}
	want := Target{ID: "pkg/mod.py:4", Path: "pkg/mod.py", Prompt: "def g():\n    \"\"\"G doc.\"\"\"\n",
		Exclusion: Exclusion{Path: "pkg/mod.py", StartLine: 3}}
	if tg.ID != want.ID || tg.Path != want.Path || tg.Prompt != want.Prompt || tg.Exclusion != want.Exclusion ||
		tg.Function.Name != "g" || tg.Function.Start != 4 || tg.Function.End != 6 {
		t.Errorf("AtLine = %+v, want %+v", tg, want)
	}
	if _, err := AtLine(repo, "pkg/mod.py", 1); err == nil || !strings.HasPrefix(err.Error(), "pkg/mod.py: ") {
		t.Errorf("outside a function: %v", err)
	}
	if _, err := AtLine(repo, "pkg/none.py", 1); err == nil {
		t.Error("missing file accepted")
	}
	bad := errors.New("no pick")
	if _, err := Locate(repo, "pkg/mod.py", func(*pysrc.File) (pysrc.Function, error) { return pysrc.Function{}, bad }); !errors.Is(err, bad) {
		t.Errorf("pick error lost: %v", err)
	}
}
