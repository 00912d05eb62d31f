package index

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"actor/internal/testsupport"
)

// walkTree returns the files Walk yields and the skip reasons it reports.
func walkTree(t *testing.T, root string, opt WalkOptions) ([]string, map[string]error) {
	t.Helper()
	skipped := map[string]error{}
	opt.Skip = func(rel string, err error) { skipped[rel] = err }
	var got []string
	if err := Walk(root, opt, func(f File) error {
		got = append(got, f.Path)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got, skipped
}

// gitignoreTree is a repository exercising nested .gitignore files,
// negation, folder-only, anchored and '**' patterns, plus files that are
// skipped for their content.
func gitignoreTree(t *testing.T) string {
	root := testsupport.WriteTree(t, t.TempDir(), map[string]string{
		".gitignore": "# build output\n*.log\n!keep.log\nbuild/\n/root_only.py\ndocs/**/*.tmp\n" +
			"ignored_dir/\n!ignored_dir/inner.py\n\\#hash.py\n*.pyc\n",
		"a.py":                 "print('a')\n",
		"b.log":                "log\n",
		"keep.log":             "kept\n",
		"root_only.py":         "x = 1\n",
		"#hash.py":             "x = 1\n",
		"space name.py":        "x = 2\n",
		"sub/root_only.py":     "x = 3\n",
		"build/x.py":           "x = 4\n",
		"sub/build/y.py":       "x = 5\n",
		"sub/.gitignore":       "!debug.log\n/local.py\ngen/\n",
		"sub/debug.log":        "debug\n",
		"sub/other.log":        "other\n",
		"sub/local.py":         "x = 6\n",
		"sub/deeper/local.py":  "x = 7\n",
		"sub/deeper/m.pyc":     "compiled\n",
		"sub/gen/z.py":         "x = 8\n",
		"docs/a/b.tmp":         "tmp\n",
		"docs/c.tmp":           "tmp\n",
		"docs/readme.md":       "# docs\n",
		"ignored_dir/inner.py": "x = 9\n",
		"binary.py":            "abc\x00def",
		"latin1.py":            "caf\xe9 = 1\n",
		"huge.py":              strings.Repeat("# padding line\n", 20),
	})
	links := map[string]string{
		"loop.py": "loop.py",        // a symlink to itself
		"dirlink": ".",              // a symlink to a folder (a loop if followed)
		"mem.py":  "/proc/self/mem", // a regular file that cannot be read
		"gone.py": "missing.py",     // a dangling link
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestWalkGitignoreAndSkips(t *testing.T) {
	root := gitignoreTree(t)
	got, skipped := walkTree(t, root, WalkOptions{MaxSize: 200, Hidden: true})
	want := []string{
		".gitignore", "a.py", "docs/readme.md", "keep.log", "space name.py",
		"sub/.gitignore", "sub/debug.log", "sub/deeper/local.py", "sub/root_only.py",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("walked %q\nwant %q", got, want)
	}
	wantSkip := map[string]error{
		"binary.py": ErrBinary,
		"latin1.py": ErrNotUTF8,
		"huge.py":   ErrTooLarge,
		"dirlink":   ErrSymlinkDir,
	}
	for p, reason := range wantSkip {
		if !errors.Is(skipped[p], reason) {
			t.Errorf("%s: skip reason %v, want %v", p, skipped[p], reason)
		}
	}
	for _, p := range []string{"loop.py", "mem.py", "gone.py"} {
		if skipped[p] == nil {
			t.Errorf("%s not reported as skipped", p)
		}
	}
	if len(skipped) != len(wantSkip)+3 {
		t.Errorf("skipped %v", skipped)
	}
	checkAgainstGit(t, root, append(got, keys(skipped)...))
}

// checkAgainstGit compares the files left after .gitignore rules (walked
// plus skipped for their content) with `git ls-files --others
// --exclude-standard`, when git is installed.
func checkAgainstGit(t *testing.T, root string, ours []string) {
	git, err := exec.LookPath("git")
	if err != nil {
		if os.Getenv("ACTOR_REQUIRE_GIT") == "1" {
			t.Fatal("git not found and ACTOR_REQUIRE_GIT=1")
		}
		t.Log("git not installed: cross-check against git skipped")
		return
	}
	run := func(args ...string) string {
		cmd := exec.Command(git, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+root)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("init", "-q")
	var theirs []string
	for _, l := range strings.Split(strings.TrimSpace(run("-c", "core.quotepath=off", "ls-files", "--others", "--exclude-standard")), "\n") {
		theirs = append(theirs, strings.Trim(l, `"`))
	}
	sort.Strings(ours)
	sort.Strings(theirs)
	if !reflect.DeepEqual(ours, theirs) {
		t.Errorf("ours %q\ngit  %q", ours, theirs)
	}
}

func keys(m map[string]error) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestWalkIncludeExclude(t *testing.T) {
	root := testsupport.WriteTree(t, t.TempDir(), map[string]string{
		".eggs/w/x.py":     "hidden folder\n",
		".hidden.py":       "hidden file\n",
		"a.py":             "a\n",
		"b.txt":            "b\n",
		"pkg/c.py":         "c\n",
		"pkg/tests/t.py":   "t\n",
		"tests/u.py":       "u\n",
		"vendor/lib/v.py":  "v\n",
		"pkg/deep/x/y.py":  "y\n",
		"pkg/deep/x/y.pyi": "y\n",
	})
	got, _ := walkTree(t, root, WalkOptions{
		Include: []string{"*.py"},
		Exclude: []string{"tests", "/vendor/**", "pkg/deep/**/y.py"},
	})
	want := []string{"a.py", "pkg/c.py"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	got, _ = walkTree(t, root, WalkOptions{Include: []string{"pkg/**/*.py*"}, NoGitignore: true})
	want = []string{"pkg/c.py", "pkg/deep/x/y.py", "pkg/deep/x/y.pyi", "pkg/tests/t.py"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestWalkBadRoot(t *testing.T) {
	if err := Walk(filepath.Join(t.TempDir(), "nope"), WalkOptions{}, func(File) error { return nil }); err == nil {
		t.Error("missing root accepted")
	}
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	if err := Walk(f, WalkOptions{}, func(File) error { return nil }); err == nil {
		t.Error("file as root accepted")
	}
}

func TestWalkStopsOnCallbackError(t *testing.T) {
	root := testsupport.WriteTree(t, t.TempDir(), map[string]string{"a.py": "a", "b.py": "b"})
	stop := errors.New("stop")
	n := 0
	err := Walk(root, WalkOptions{}, func(File) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("err %v after %d files", err, n)
	}
}
