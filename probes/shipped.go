// Package probes holds the critical-token probes shipped with actor, one
// per known model (<model>.probe), embedded in the binary so that ACToR
// runs wherever the binary is installed. probes/README.md says how each
// was trained.
package probes

import (
	"embed"
	"io/fs"
)

//go:embed *.probe
var shipped embed.FS

// File returns the shipped probe file named name (e.g.
// "qwen2.5-coder-0.5b.probe"); ok is false when none is shipped.
func File(name string) (data []byte, ok bool) {
	b, err := fs.ReadFile(shipped, name)
	return b, err == nil
}
