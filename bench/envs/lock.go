package envs

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// LockConfig says which lock files to compile.
type LockConfig struct {
	// SpecDir holds the .in files; each <name>.lock is written beside its
	// <name>.in (the repository's bench/envs/repoexec).
	SpecDir string
	// ToolsDir is where uv is installed when missing (DIR/.tools).
	ToolsDir string
	// Projects restricts the run to these project paths or names.
	Projects []string
	// Log receives progress lines; nil discards.
	Log io.Writer
}

// ImageFile, in the spec folder, lists the benchmark image's own packages
// (its Dockerfile's pip installs), which every environment holds beside
// its project's pins, as the image does.
const ImageFile = "image.txt"

// CompileArgs are uv's arguments that resolve a .in file together with
// ImageFile as the benchmark's sources stood: Python PythonVersion on
// Platform, nothing newer than CutOff, every artifact's hash recorded.
func CompileArgs(in, out string) []string {
	return []string{"pip", "compile", "--quiet", "--python-version", PythonVersion, "--python-platform", Platform,
		"--exclude-newer", CutOff, "--generate-hashes", "--custom-compile-command", "actor bench lock", ImageFile, in, "-o", out}
}

// Lock compiles the .in files of cfg.SpecDir into lock files. It returns
// the names whose resolution failed, with uv's reason.
func Lock(ctx context.Context, cfg LockConfig) ([]string, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	specs, err := SpecsIn(cfg.SpecDir)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", cfg.SpecDir, err)
	}
	if specs, err = selectSpecs(specs, cfg.Projects); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.ToolsDir, 0o755); err != nil {
		return nil, err
	}
	t, err := ensureTools(ctx, cfg.ToolsDir, cfg.Log)
	if err != nil {
		return nil, err
	}
	var failed []string
	for i, s := range specs {
		in := filepath.Join(cfg.SpecDir, s.Name+".in")
		out := filepath.Join(cfg.SpecDir, s.Name+".lock")
		fmt.Fprintf(cfg.Log, "[%d/%d] %s: resolving %d requirements\n", i+1, len(specs), s.Name, len(s.Requirements))
		// uv names the input file in the lock's comments: run it from the
		// spec folder so they hold no machine path.
		args := CompileArgs(filepath.Base(in), filepath.Base(out))
		if err := runIn(ctx, cfg.SpecDir, t.uv, args...); err != nil {
			failed = append(failed, s.Name+": "+strings.ReplaceAll(err.Error(), "\n", " "))
			fmt.Fprintf(cfg.Log, "[%d/%d] %s: FAILED: %v\n", i+1, len(specs), s.Name, err)
		}
	}
	return failed, ctx.Err()
}
