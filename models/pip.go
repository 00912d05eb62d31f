package models

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// python is the interpreter whose pip serves as the fallback downloader.
var python = "python3"

// pipDownload fetches the wheel of w with `python3 -m pip download`, which
// checks the index's digest itself and follows the machine's pip
// configuration (index mirror, proxy, certificates). The wheel is moved
// into downloads and its path returned. pip's own output goes to log.
func pipDownload(ctx context.Context, w Wheel, downloads string, log io.Writer) (string, error) {
	tmp, err := os.MkdirTemp(downloads, "pip-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if log == nil {
		log = io.Discard
	}
	spec := w.Project + "==" + w.Version
	cmd := exec.CommandContext(ctx, python, "-m", "pip", "download", "--no-deps",
		"--only-binary=:all:", "--dest", tmp, spec)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s -m pip download %s: %v", python, spec, err)
	}
	found, _ := filepath.Glob(filepath.Join(tmp, "*.whl"))
	for _, p := range found {
		name := filepath.Base(p)
		if wheelMatches(name, w) {
			dst := filepath.Join(downloads, name)
			return dst, os.Rename(p, dst)
		}
	}
	return "", fmt.Errorf("pip download %s: no matching wheel in its output", spec)
}
