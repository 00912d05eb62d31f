package main

import (
	"actor/engine"
	"actor/models"
	"actor/probe"
	"actor/tokenizer"
)

// openModel resolves a --model argument (a pulled model's name or a GGUF
// path), loads it and reads its tokenizer from the same file: what every
// command that decodes starts with. The caller closes the model.
func openModel(name string, opts engine.Options) (*engine.Model, *tokenizer.Tokenizer, error) {
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

// probeModelInfo is what a probe file records of the model it was trained
// for, so that it refuses to load for another.
func probeModelInfo(m *engine.Model, tok *tokenizer.Tokenizer) probe.ModelInfo {
	return probe.ModelInfo{Arch: m.Config.Architecture, Hidden: m.Config.Embed, TokenizerHash: tok.Hash(), Name: m.Config.Name}
}
