package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"actor/engine"
	"actor/models"
	"actor/probe"
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

// ProbeModelInfo is what a probe file records of the model it was trained
// for, so that it refuses to load for another.
func ProbeModelInfo(m *engine.Model, tok *tokenizer.Tokenizer) probe.ModelInfo {
	return probe.ModelInfo{Arch: m.Config.Architecture, Hidden: m.Config.Embed, TokenizerHash: tok.Hash(), Name: m.Config.Name}
}

// ProbeDirs are where a model's shipped probe is looked for, in order:
// $ACTOR_HOME/probes, then probes/ under the working folder (the
// repository's committed probes when run from its root).
func ProbeDirs() []string {
	var dirs []string
	if home, err := models.Home(); err == nil {
		dirs = append(dirs, filepath.Join(home, "probes"))
	}
	return append(dirs, "probes")
}

// ShippedProbe returns the probe file named after the model
// (<model>.probe) in ProbeDirs.
func ShippedProbe(model string) (string, error) {
	name := strings.TrimSuffix(filepath.Base(model), ".gguf") + ".probe"
	for _, d := range ProbeDirs() {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no probe for %s: give --probe FILE (looked for %s in %s), or --no-inference", model, name, strings.Join(ProbeDirs(), " and "))
}

// ModelLabel names a model in predictions: its registry name, or the base
// name of its file.
func ModelLabel(model string) string {
	return strings.TrimSuffix(filepath.Base(model), ".gguf")
}
