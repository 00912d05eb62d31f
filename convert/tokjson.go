package convert

import "actor/tokenizer"

// Encoders keep their tokenizer as a tokenizer.json text in the GGUF key
// gguf.KeyTokenizerJSON: the folder's tokenizer.json verbatim, or for a folder
// with only the slow tokenizer's files (BERT's vocab.txt, RoBERTa's
// vocab.json + merges.txt, as microsoft/unixcoder-base ships) the
// tokenizer.json that package tokenizer builds from them, as transformers
// does. Package tokenizer checks that the text loads, so a file that
// converts loads.

// encoderTokenizerJSON returns the tokenizer.json text for the encoder in
// dir.
func encoderTokenizerJSON(dir string) (string, error) {
	raw, err := tokenizer.HFDirJSON(dir)
	if err != nil {
		return "", err
	}
	return string(raw), nil
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}
