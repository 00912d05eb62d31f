package envs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// SourceBuild is a C extension that the benchmark's copy of a project's
// sources held built in place, and that its tests need: tornado's test
// programs for tornado.util inline that module without the pure-Python
// _websocket_mask_python and import tornado.speedups first, so they pass
// only where speedups.c was compiled next to it (tasks 595–599).
type SourceBuild struct {
	// Project is the project's path under the repositories folder.
	Project string
	// Source is the extension's C file, relative to the project.
	Source string
	// Built matches the built module, relative to the project.
	Built string
}

// SourceBuilds lists the in-place builds of RepoExec's projects (only
// tornado has a C extension among its 23).
var SourceBuilds = []SourceBuild{{
	Project: "test-apps/tornado",
	Source:  "tornado/speedups.c",
	Built:   "tornado/speedups.cpython-*.so",
}}

// BuildInPlace compiles b in the project folder dir with python
// (`setup.py build_ext --inplace`, as `pip install -e` would), unless a
// built module is already there; the build/ folder it leaves is removed
// when it was not there before. It reports whether it built.
func BuildInPlace(ctx context.Context, python, dir string, b SourceBuild) (bool, error) {
	if _, err := os.Stat(filepath.Join(dir, b.Source)); err != nil {
		return false, fmt.Errorf("%s: %w", b.Project, err)
	}
	if done, _ := filepath.Glob(filepath.Join(dir, b.Built)); len(done) > 0 {
		return false, nil
	}
	_, err := os.Stat(filepath.Join(dir, "build"))
	hadBuild := !errors.Is(err, fs.ErrNotExist)
	if err := runIn(ctx, dir, python, "setup.py", "build_ext", "--inplace"); err != nil {
		return false, fmt.Errorf("%s: %w", b.Project, err)
	}
	if !hadBuild {
		if err := os.RemoveAll(filepath.Join(dir, "build")); err != nil {
			return true, err
		}
	}
	if done, _ := filepath.Glob(filepath.Join(dir, b.Built)); len(done) == 0 {
		return true, fmt.Errorf("%s: setup.py build_ext made no %s", b.Project, b.Built)
	}
	return true, nil
}

// buildSources builds the in-place extensions of the selected projects
// found under repos, each with its project's environment in dir.
func buildSources(ctx context.Context, dir, repos string, specs []Spec, res *SetupResult, log io.Writer) {
	for _, b := range SourceBuilds {
		if !slices.ContainsFunc(specs, func(s Spec) bool { return s.Project == b.Project }) {
			continue
		}
		src := filepath.Join(repos, b.Project)
		if _, err := os.Stat(src); err != nil {
			fmt.Fprintf(log, "%s: not under %s, its C extension not built\n", b.Project, repos)
			continue
		}
		python, ok := Interpreter(dir, b.Project)
		if !ok {
			res.Failed = append(res.Failed, b.Project+": no environment to build its C extension with")
			continue
		}
		built, err := BuildInPlace(ctx, python, src, b)
		switch {
		case err != nil:
			res.Failed = append(res.Failed, err.Error())
		case built:
			fmt.Fprintf(log, "%s: built %s in place\n", b.Project, b.Source)
		default:
			fmt.Fprintf(log, "%s: %s already built\n", b.Project, b.Source)
		}
	}
}
