// Package tokenizer turns text into the token ids of a model and back,
// reproducing llama.cpp's tokenizers from GGUF metadata: byte-level BPE
// with the pre-tokenizer the model declares (llama-bpe, smollm, qwen2,
// deepseek-coder, gpt-2, default) and SentencePiece-style BPE with byte
// fallback (Llama 2, CodeLlama). Ids equal llama.cpp's for valid UTF-8;
// decoding inverts encoding exactly, invalid UTF-8 included.
//
// It also loads Hugging Face tokenizers (FromJSON, FromHFDir: tokenizer.json,
// vocab.json + merges.txt, vocab.txt) into the same Tokenizer, with ids equal
// to the tokenizers package's; EncodeForModel and EncodeBatch give encoder
// models their input (template special tokens, truncation, padding masks).
package tokenizer

import (
	"fmt"
	"sync"
)

// Tokenizer encodes and decodes text for one vocabulary. It is safe for
// concurrent use.
type Tokenizer struct {
	spm    bool
	texts  []string // token texts as stored ("Ġfoo", "▁foo", "<s>")
	byText map[string]int32
	attrs  []uint8
	scores []float32
	pieces []string // the bytes each token stands for
	eog    []bool
	fim    FIM

	bos, eos, unk  int32
	addBOS, addEOS bool
	addSpacePrefix bool

	allSpecials, userSpecials *specialIndex

	cache wordCache // ids of recent pre-tokens (BPE) or chunks (SPM)

	// byte-level BPE
	pre          *pretokenizer
	bpe          *bpeModel
	ignoreMerges bool
	// SentencePiece byte fallback, and whether text may be cut into chunks
	spmByte   [256]int32
	spmChunks bool

	// Hugging Face pipeline (tokenizer.json); nil for GGUF vocabularies
	hf *hfPipeline
	// post is the template Encode applies with addSpecial (BOS and EOS for
	// GGUF vocabularies); pad the padding token, -1 if none
	post []tmplPiece
	pad  int32

	hash string
}

// tmplPiece is one element of a post-processing template: the sequence
// itself, or special token ids.
type tmplPiece struct {
	seq bool
	ids []int32
}

// New builds a tokenizer from a vocabulary.
func New(v Vocab) (*Tokenizer, error) {
	if err := v.check(); err != nil {
		return nil, err
	}
	n := len(v.Tokens)
	t := &Tokenizer{
		spm:            v.Model == ModelSPM,
		texts:          make([]string, n),
		byText:         make(map[string]int32, n),
		attrs:          make([]uint8, n),
		scores:         v.Scores,
		addBOS:         v.AddBOS,
		addEOS:         v.AddEOS,
		addSpacePrefix: v.AddSpacePrefix,
		hash:           v.hash(),
	}
	var eot, eom int32
	t.bos, t.eos, eot, eom, t.unk, t.pad = v.specialIDs()
	for i := range n {
		t.texts[i] = v.tokenText(i)
		t.byText[t.texts[i]] = int32(i) // the last of duplicate texts wins, as in llama.cpp
		t.attrs[i] = attrNormal
		if v.Types != nil {
			t.attrs[i] = attrOfType(v.Types[i])
		}
	}
	eog := t.detectSpecials(eot, eom, true)
	t.eog = make([]bool, n)
	for id := range eog {
		t.eog[id] = true
	}
	t.buildSpecialIndexes()
	if t.spm {
		t.spmByte = spmBytes(t.byText, t.unk)
		t.spmChunks = spmChunkable(t.texts)
	} else {
		spec, ok := preSpecs[v.Pre]
		if !ok {
			return nil, fmt.Errorf("tokenizer: unsupported pre-tokenizer %q", v.Pre)
		}
		t.pre, t.ignoreMerges = newPretokenizer(spec), spec.ignoreMerges
		t.bpe = newBPEModel(t.byText, n, v.Merges)
	}
	t.pieces = make([]string, n)
	for i := range n {
		t.pieces[i] = t.piece(int32(i))
	}
	if t.addBOS && t.bos >= 0 {
		t.post = append(t.post, tmplPiece{ids: []int32{t.bos}})
	}
	t.post = append(t.post, tmplPiece{seq: true})
	if t.addEOS && t.eos >= 0 {
		t.post = append(t.post, tmplPiece{ids: []int32{t.eos}})
	}
	return t, nil
}

// Encode returns the token ids of text, with the model's BOS (and EOS)
// when addSpecial is set and its metadata asks for them (a Hugging Face
// tokenizer: its post-processor's template, e.g. [CLS] … [SEP]). Text that
// spells a control token ("<|im_end|>", a special added token) is encoded
// as ordinary text; user-defined (non-special added) tokens are matched
// verbatim, as llama.cpp and tokenizers do.
func (t *Tokenizer) Encode(text string, addSpecial bool) []int32 {
	return t.encode(text, addSpecial, false)
}

// EncodeSpecial is Encode that also matches the texts of control tokens
// ("<|im_start|>", "<s>") as those tokens, for chat templates and
// fill-in-the-middle prompts.
func (t *Tokenizer) EncodeSpecial(text string, addSpecial bool) []int32 {
	return t.encode(text, addSpecial, true)
}

func (t *Tokenizer) encode(text string, addSpecial, parseSpecial bool) []int32 {
	var out []int32
	if t.hf != nil {
		out = t.encodeHF(text, parseSpecial)
	} else {
		out = t.encodeGGUF(text, parseSpecial)
	}
	if addSpecial {
		out = t.wrap(out)
	}
	return out
}

// encodeGGUF returns the ids of text for a GGUF vocabulary, without BOS
// and EOS.
func (t *Tokenizer) encodeGGUF(text string, parseSpecial bool) []int32 {
	out := make([]int32, 0, len(text)/3+2)
	prevSpecial := true
	for _, f := range t.partition(text, parseSpecial) {
		switch {
		case f.token >= 0:
			out = append(out, f.token)
			prevSpecial = true
		case t.spm:
			out = t.encodeSPM(text[f.start:f.end], t.addSpacePrefix && prevSpecial, out)
			prevSpecial = false
		default:
			out = t.encodeBPE(text[f.start:f.end], out)
		}
	}
	return out
}

// encodeBPE appends the tokens of a fragment: pre-tokenise, then BPE each
// word (through the word cache).
func (t *Tokenizer) encodeBPE(frag string, out []int32) []int32 {
	words := t.pre.split(frag, make([]span, 0, len(frag)/4+1))
	for _, w := range words {
		word := frag[w.a:w.b]
		if ids, ok := t.cache.get(word); ok {
			out = append(out, ids...)
			continue
		}
		start := len(out)
		if id, ok := t.wholeWord(word); ok {
			out = append(out, id)
		} else {
			out = t.bpe.encode(word, t.byText, out)
		}
		t.cache.put(word, out[start:])
	}
	return out
}

// wholeWord reports the token of a word that is itself a vocabulary entry,
// for pre-tokenizers that skip merges in that case.
func (t *Tokenizer) wholeWord(word string) (int32, bool) {
	if !t.ignoreMerges {
		return 0, false
	}
	id, ok := t.byText[byteLevel(word)]
	return id, ok
}

// wordCache maps recently seen pre-tokens to their ids. Source code repeats
// the same identifiers and indentation endlessly, so most words are found
// here; the cache is emptied when it grows past maxEntries.
type wordCache struct {
	mu sync.RWMutex
	m  map[string][]int32
}

const (
	maxCacheEntries = 1 << 18
	maxCachedWord   = 256
)

func (c *wordCache) get(w string) ([]int32, bool) {
	c.mu.RLock()
	ids, ok := c.m[w]
	c.mu.RUnlock()
	return ids, ok
}

func (c *wordCache) put(w string, ids []int32) {
	if len(w) > maxCachedWord {
		return
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCacheEntries {
		c.m = make(map[string][]int32)
	}
	c.m[w] = append([]int32(nil), ids...)
	c.mu.Unlock()
}

// VocabSize returns the number of tokens.
func (t *Tokenizer) VocabSize() int { return len(t.texts) }

// BOS returns the beginning-of-sequence token id, -1 if none.
func (t *Tokenizer) BOS() int32 { return t.bos }

// EOS returns the end-of-sequence token id, -1 if none.
func (t *Tokenizer) EOS() int32 { return t.eos }

// AddsBOS reports whether Encode with addSpecial prepends BOS.
func (t *Tokenizer) AddsBOS() bool { return t.addBOS && t.bos >= 0 }

// EOG reports whether id ends generation: eos, eot, and the tokens
// llama.cpp recognises as such (<|im_end|>, <|endoftext|>, <|file_sep|>,
// ...).
func (t *Tokenizer) EOG(id int32) bool { return t.valid(id) && t.eog[id] }

// IsSpecial reports whether id is a control or unknown token: one that
// stands for no text and that Decode leaves out.
func (t *Tokenizer) IsSpecial(id int32) bool {
	return t.valid(id) && t.attrs[id]&(attrControl|attrUnknown) != 0
}

// TokenText returns the token's text as the vocabulary stores it (byte-level
// "Ġreturn", SentencePiece "▁return", "<|im_end|>"); "" for an invalid id.
func (t *Tokenizer) TokenText(id int32) string {
	if !t.valid(id) {
		return ""
	}
	return t.texts[id]
}

// Piece returns the bytes token id stands for in decoded text (possibly
// part of a UTF-8 sequence); "" for special and invalid ids. For a Hugging
// Face tokenizer it is what the decoder chain makes of the token after
// other tokens (WordPiece: "##ing" is "ing", "run" is " run").
func (t *Tokenizer) Piece(id int32) string {
	if !t.valid(id) || t.IsSpecial(id) {
		return ""
	}
	return t.pieces[id]
}

// Hash returns a stable hex digest of the vocabulary, merges, scores and
// special-token settings (for a Hugging Face tokenizer: of its
// tokenizer.json or vocabulary files and configuration): two tokenizers
// with the same hash encode alike.
func (t *Tokenizer) Hash() string { return t.hash }

func (t *Tokenizer) valid(id int32) bool { return id >= 0 && int(id) < len(t.texts) }
