package tokenizer

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Token types as stored in the GGUF key tokenizer.ggml.token_type (the
// values of llama.cpp's llama_token_type).
const (
	TypeUndefined   int32 = 0
	TypeNormal      int32 = 1
	TypeUnknown     int32 = 2
	TypeControl     int32 = 3
	TypeUserDefined int32 = 4
	TypeUnused      int32 = 5
	TypeByte        int32 = 6
)

// Model names of tokenizer.ggml.model that this package implements.
const (
	ModelBPE = "gpt2"  // byte-level BPE with a regex pre-tokenizer
	ModelSPM = "llama" // SentencePiece-style BPE with byte fallback
)

// Vocab is the tokenizer part of a model's metadata, independent of the
// file format it came from. FromGGUF fills it from tokenizer.ggml.* keys;
// tests and tools may build one by hand.
type Vocab struct {
	// Model is tokenizer.ggml.model: ModelBPE or ModelSPM.
	Model string
	// Pre is tokenizer.ggml.pre, the pre-tokenizer of a BPE model
	// ("llama-bpe", "smollm", "qwen2", "deepseek-coder", "gpt-2",
	// "default", ...). Empty means "default".
	Pre string
	// Tokens holds the token texts; the index is the token id.
	Tokens []string
	// Types holds one token type per token (TypeNormal, TypeControl, ...);
	// nil means all normal.
	Types []int32
	// Scores are the SentencePiece merge priorities (higher merges first);
	// nil means all zero. Unused by BPE models.
	Scores []float32
	// Merges are the BPE merges "left right", rank = index. Unused by SPM.
	Merges []string
	// Special token ids; -1 when the model has none (PAD is what
	// EncodeBatch pads with).
	BOS, EOS, EOT, EOM, PAD, UNK int32
	// AddBOS/AddEOS: whether Encode with addSpecial adds BOS/EOS.
	AddBOS, AddEOS bool
	// AddSpacePrefix: SPM models prepend a space to text that starts the
	// input or follows a special token.
	AddSpacePrefix bool
}

// Token attributes (llama.cpp's llama_token_attr bits that matter here).
const (
	attrUnknown     uint8 = 1 << iota // <unk>: matched as a special, not rendered
	attrUnused                        // unused slot
	attrNormal                        // ordinary piece of text
	attrControl                       // control token: <s>, <|im_end|>, ...
	attrUserDefined                   // added token matched verbatim in text
	attrByte                          // <0xXX> byte fallback token
)

func attrOfType(t int32) uint8 {
	switch t {
	case TypeUnknown:
		return attrUnknown
	case TypeUnused:
		return attrUnused
	case TypeNormal:
		return attrNormal
	case TypeControl:
		return attrControl
	case TypeUserDefined:
		return attrUserDefined
	case TypeByte:
		return attrByte
	}
	return 0
}

// check validates the parts of v that New relies on.
func (v *Vocab) check() error {
	n := len(v.Tokens)
	if n == 0 {
		return fmt.Errorf("tokenizer: vocabulary is empty")
	}
	if n > 1<<30 {
		return fmt.Errorf("tokenizer: vocabulary of %d tokens is too large", n)
	}
	if v.Types != nil && len(v.Types) < n {
		return fmt.Errorf("tokenizer: %d token types for %d tokens", len(v.Types), n)
	}
	if v.Scores != nil && len(v.Scores) < n {
		return fmt.Errorf("tokenizer: %d token scores for %d tokens", len(v.Scores), n)
	}
	switch v.Model {
	case ModelBPE, ModelSPM:
	default:
		return fmt.Errorf("tokenizer: unsupported tokenizer model %q (want %q or %q)", v.Model, ModelBPE, ModelSPM)
	}
	return nil
}

// specialIDs returns v's special ids with out-of-range ids disabled (-1),
// as llama.cpp does with a warning.
func (v *Vocab) specialIDs() (bos, eos, eot, eom, unk, pad int32) {
	fix := func(id int32) int32 {
		if id < 0 || int(id) >= len(v.Tokens) {
			return -1
		}
		return id
	}
	return fix(v.BOS), fix(v.EOS), fix(v.EOT), fix(v.EOM), fix(v.UNK), fix(v.PAD)
}

// tokenText returns the text of token i, renaming an empty text to
// "[EMPTY_i]" as llama.cpp does so that lookups by text stay unambiguous.
func (v *Vocab) tokenText(i int) string {
	if v.Tokens[i] == "" {
		return "[EMPTY_" + strconv.Itoa(i) + "]"
	}
	return v.Tokens[i]
}

// hash digests everything that decides how v encodes: model, pre-tokenizer,
// token texts, types and scores, merges, special ids and flags.
func (v *Vocab) hash() string {
	h := sha256.New()
	var buf [8]byte
	num := func(x uint64) {
		binary.LittleEndian.PutUint64(buf[:], x)
		h.Write(buf[:])
	}
	str := func(s string) {
		num(uint64(len(s)))
		io.WriteString(h, s)
	}
	str("actor-tokenizer-v1")
	str(v.Model)
	str(v.Pre)
	num(uint64(len(v.Tokens)))
	for i, s := range v.Tokens {
		str(s)
		if v.Types != nil {
			num(uint64(uint32(v.Types[i])))
		}
		if v.Scores != nil {
			num(uint64(math.Float32bits(v.Scores[i])))
		}
	}
	num(uint64(len(v.Merges)))
	for _, s := range v.Merges {
		str(s)
	}
	for _, id := range []int32{v.BOS, v.EOS, v.EOT, v.EOM, v.PAD, v.UNK} {
		num(uint64(uint32(id)))
	}
	for _, b := range []bool{v.AddBOS, v.AddEOS, v.AddSpacePrefix} {
		if b {
			num(1)
		} else {
			num(0)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
