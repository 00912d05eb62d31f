package tokenizer

import (
	"fmt"

	"actor/gguf"
)

// GGUF metadata keys read by FromGGUF.
const (
	keyModel     = "tokenizer.ggml.model"
	keyPre       = "tokenizer.ggml.pre"
	keyTokens    = "tokenizer.ggml.tokens"
	keyTypes     = "tokenizer.ggml.token_type"
	keyScores    = "tokenizer.ggml.scores"
	keyMerges    = "tokenizer.ggml.merges"
	keyBOS       = "tokenizer.ggml.bos_token_id"
	keyEOS       = "tokenizer.ggml.eos_token_id"
	keyEOT       = "tokenizer.ggml.eot_token_id"
	keyEOM       = "tokenizer.ggml.eom_token_id"
	keyUNK       = "tokenizer.ggml.unknown_token_id"
	keyPAD       = "tokenizer.ggml.padding_token_id"
	keyAddBOS    = "tokenizer.ggml.add_bos_token"
	keyAddEOS    = "tokenizer.ggml.add_eos_token"
	keyAddPrefix = "tokenizer.ggml.add_space_prefix"
)

// FromGGUF builds the tokenizer a GGUF model file declares, with llama.cpp's
// defaults for whatever its metadata leaves out.
func FromGGUF(f *gguf.File) (*Tokenizer, error) {
	v, err := vocabFromGGUF(f)
	if err != nil {
		return nil, err
	}
	t, err := New(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	return t, nil
}

func vocabFromGGUF(f *gguf.File) (Vocab, error) {
	var v Vocab
	var err error
	if v.Model, err = f.String(keyModel); err != nil {
		return v, err
	}
	if f.Has(keyPre) {
		if v.Pre, err = f.String(keyPre); err != nil {
			return v, err
		}
	}
	if v.Tokens, err = f.Strings(keyTokens); err != nil {
		return v, err
	}
	if f.Has(keyTypes) {
		if v.Types, err = f.Int32s(keyTypes); err != nil {
			return v, err
		}
	}
	if f.Has(keyScores) {
		if v.Scores, err = scores(f); err != nil {
			return v, err
		}
	}
	// llama.cpp's defaults per tokenizer model.
	v.EOT, v.EOM, v.PAD = -1, -1, -1
	switch v.Model {
	case ModelSPM:
		v.BOS, v.EOS, v.UNK = 1, 2, 0
		v.AddBOS, v.AddSpacePrefix = true, true
	case ModelBPE:
		if v.Merges, err = f.Strings(keyMerges); err != nil {
			return v, err
		}
		v.BOS, v.EOS, v.UNK = 11, 11, -1
		v.AddBOS = preSpecs[v.Pre].addBOS
	default:
		return v, fmt.Errorf("%s: unsupported tokenizer model %q (want %q or %q)", f.Path, v.Model, ModelBPE, ModelSPM)
	}
	for _, s := range []struct {
		key string
		id  *int32
	}{{keyBOS, &v.BOS}, {keyEOS, &v.EOS}, {keyEOT, &v.EOT}, {keyEOM, &v.EOM}, {keyUNK, &v.UNK}, {keyPAD, &v.PAD}} {
		if !f.Has(s.key) {
			continue
		}
		id, err := f.Uint(s.key)
		if err != nil {
			return v, err
		}
		if id < uint64(len(v.Tokens)) { // llama.cpp keeps the default for an out-of-range id
			*s.id = int32(id)
		}
	}
	for _, s := range []struct {
		key string
		b   *bool
	}{{keyAddBOS, &v.AddBOS}, {keyAddEOS, &v.AddEOS}, {keyAddPrefix, &v.AddSpacePrefix}} {
		if !f.Has(s.key) {
			continue
		}
		if *s.b, err = f.Bool(s.key); err != nil {
			return v, err
		}
	}
	return v, nil
}

// scores reads tokenizer.ggml.scores, stored as float32 or int32.
func scores(f *gguf.File) ([]float32, error) {
	s, err := f.Float32s(keyScores)
	if err == nil {
		return s, nil
	}
	ints, ierr := f.Int32s(keyScores)
	if ierr != nil {
		return nil, err
	}
	s = make([]float32, len(ints))
	for i, x := range ints {
		s[i] = float32(x)
	}
	return s, nil
}
