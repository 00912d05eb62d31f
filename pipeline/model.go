package pipeline

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"actor/engine"
	"actor/gguf"
	"actor/internal/atomicfile"
	"actor/models"
	"actor/probe"
	"actor/probes"
	"actor/tokenizer"
)

// OpenModel resolves a model argument (a pulled model's name or a GGUF
// path), loads it and reads its tokenizer from the same file: what every
// command that decodes starts with. The caller closes the model.
func OpenModel(name string, opts engine.Options) (*engine.Model, *tokenizer.Tokenizer, error) {
	path, err := models.Resolve(name)
	if err != nil {
		return nil, nil, err
	}
	m, err := engine.Load(path, opts)
	if err != nil {
		return nil, nil, err
	}
	tok, err := tokenizer.FromGGUF(m.GGUF())
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return m, tok, nil
}

// OpenTokenizer resolves a model argument as OpenModel does and reads
// only its tokenizer, from the GGUF metadata, without loading the
// weights: for commands that count or show tokens.
func OpenTokenizer(name string) (*tokenizer.Tokenizer, error) {
	path, err := models.Resolve(name)
	if err != nil {
		return nil, err
	}
	f, err := gguf.Open(path)
	if err != nil {
		return nil, err
	}
	return tokenizer.FromGGUF(f)
}

// ProbeModelInfo is what a probe file records of the model it was trained
// for, so that it refuses to load for another.
func ProbeModelInfo(m *engine.Model, tok *tokenizer.Tokenizer) probe.ModelInfo {
	return probe.ModelInfo{Arch: m.Config.Architecture, Hidden: m.Config.Embed, TokenizerHash: tok.Hash(), Name: m.Config.Name}
}

// ProbeDirs are where a probe file for a model is looked for before the
// one built into the binary: a user's own in $ACTOR_HOME/probes, then
// probes/ under the working folder (in the repository's checkout, the
// committed probes the binary embeds, under the path run records and
// reports have always named).
func ProbeDirs() []string {
	var dirs []string
	if home, err := models.Home(); err == nil {
		dirs = append(dirs, filepath.Join(home, "probes"))
	}
	return append(dirs, "probes")
}

// ShippedProbe returns the probe file of the model (<model>.probe): a
// user's own in ProbeDirs, else the one shipped in the binary (package
// probes), written to $ACTOR_HOME/shipped-probes (again whenever its
// content differs from the binary's), so that runs record and hash a file
// as for any probe.
func ShippedProbe(model string) (string, error) {
	name := strings.TrimSuffix(filepath.Base(model), ".gguf") + ".probe"
	for _, d := range ProbeDirs() {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	data, ok := probes.File(name)
	if !ok {
		return "", fmt.Errorf("no probe for %s: give --probe FILE (none is shipped for it, and there is no %s in %s), or --no-inference", model, name, strings.Join(ProbeDirs(), " and "))
	}
	home, err := models.Home()
	if err != nil {
		return "", err
	}
	p := filepath.Join(home, "shipped-probes", name)
	if have, err := os.ReadFile(p); err == nil && bytes.Equal(have, data) {
		return p, nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", fmt.Errorf("installing the shipped probe: %w", err)
	}
	if err := atomicfile.Write(p, data); err != nil {
		return "", fmt.Errorf("installing the shipped probe: %w", err)
	}
	return p, nil
}

// ModelLabel names a model in predictions: its registry name, or the base
// name of its file.
func ModelLabel(model string) string {
	return strings.TrimSuffix(filepath.Base(model), ".gguf")
}
