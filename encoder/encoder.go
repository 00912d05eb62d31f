// Package encoder runs BERT and RoBERTa text encoders (all-MiniLM-L6-v2,
// UniXcoder) converted to GGUF by package convert, and implements
// retrieve.Encoder: texts in, the last hidden layer of every token out
// (pooling is retrieve's job).
//
//	e, err := encoder.Open("minilm.gguf", encoder.Options{})
//	defer e.Close()
//	batch, err := e.Encode([]string{"def f(x):", "return x"})
//
// The tokenizer is the file's own (a tokenizer.json text parsed by package
// tokenizer). Inputs are cut to the model's trained length, special tokens
// included, as Hugging Face's tokenizer(text, truncation=True) does. A call
// sorts its texts by token count and packs them without padding (only
// attention pads, within runs of similar length); results come back in the
// input order.
package encoder

import (
	"fmt"
	"runtime"
	"slices"

	"actor/engine/ggml"
	"actor/gguf"
	"actor/models"
	"actor/retrieve"
	"actor/tokenizer"
)

// Layout is how a text becomes the encoder's input sequence.
type Layout string

// The input layouts. LayoutAuto is LayoutModel for BERT and, for RoBERTa
// models whose vocabulary has <encoder-only> (UniXcoder), LayoutEncoderOnly.
const (
	LayoutAuto Layout = ""
	// LayoutModel is the tokenizer's own template: [CLS] x [SEP] (BERT),
	// <s> x </s> (RoBERTa).
	LayoutModel Layout = "model"
	// LayoutEncoderOnly is UniXcoder's encoder mode as RLCoder uses it:
	// <s> <encoder-only> </s> x </s>.
	LayoutEncoderOnly Layout = "encoder-only"
	// LayoutPlain is the ACToR authors' UniXcoder input, without the mode
	// token: <s> </s> x </s>.
	LayoutPlain Layout = "plain"
)

// ParseLayout checks a layout name ("", "auto", "model", "encoder-only",
// "plain").
func ParseLayout(s string) (Layout, error) {
	switch l := Layout(s); l {
	case "auto":
		return LayoutAuto, nil
	case LayoutAuto, LayoutModel, LayoutEncoderOnly, LayoutPlain:
		return l, nil
	}
	return "", fmt.Errorf("unknown encoder layout %q (want auto, model, encoder-only or plain)", s)
}

// Options tune how an encoder is loaded and run.
type Options struct {
	// Threads is ggml's CPU thread count, process-wide (the last load of
	// any model sets it). 0 means the number of CPUs, at most 8.
	Threads int
	// Layout is the input layout (default LayoutAuto).
	Layout Layout
	// MaxTokens cuts inputs to this many tokens, special tokens included;
	// 0 means the model's trained length (256 for all-MiniLM-L6-v2).
	MaxTokens int
	// BatchTokens bounds the tokens of one forward pass (memory grows
	// with it); 0 means DefaultBatchTokens.
	BatchTokens int
}

// DefaultBatchTokens is the default token budget of a forward pass:
// large enough for efficient matrix products, small enough that the
// activations stay in cache.
const DefaultBatchTokens = 2048

// Encoder is a loaded encoder. It is not safe for concurrent use.
type Encoder struct {
	// Config is the model's shape, read from the file.
	Config Config
	opts   Options
	tok    *tokenizer.Tokenizer
	net    *ggml.Encoder
	id     string
	prefix []int32 // input layout: prefix + text ids + suffix
	suffix []int32
	model  bool // the tokenizer's own template
	last   lastQuery
}

// lastQuery remembers the most recent single-text encoding. ACToR
// re-queries with a text that grows by one token per trigger; once it is
// longer than MaxTokens an input cut at its end stops changing, and so
// would the embedding: it is then returned without a forward pass.
type lastQuery struct {
	ids []int32
	out retrieve.TokenBatch
}

var _ retrieve.CutEncoder = (*Encoder)(nil)

// Open validates the GGUF encoder file at path (metadata, every tensor,
// the embedded tokenizer) and loads its weights.
func Open(path string, opts Options) (*Encoder, error) {
	f, err := gguf.Open(path)
	if err != nil {
		return nil, err
	}
	cfg, err := readConfig(f)
	if err != nil {
		return nil, fmt.Errorf("encoder: %s: %w", path, err)
	}
	js, err := f.String(gguf.KeyTokenizerJSON)
	if err != nil {
		return nil, fmt.Errorf("encoder: %s: no tokenizer (%v)", path, err)
	}
	tok, err := tokenizer.ParseJSON([]byte(js), path+": "+gguf.KeyTokenizerJSON)
	if err != nil {
		return nil, fmt.Errorf("encoder: %w", err)
	}
	if tok.VocabSize() > cfg.Vocab {
		return nil, fmt.Errorf("encoder: %s: tokenizer has %d tokens, the model %d", path, tok.VocabSize(), cfg.Vocab)
	}
	switch {
	case opts.MaxTokens < 0 || opts.MaxTokens > cfg.Positions:
		return nil, fmt.Errorf("encoder: max tokens %d outside 0..%d (the position table of %s)", opts.MaxTokens, cfg.Positions, path)
	case opts.MaxTokens == 0:
		opts.MaxTokens = cfg.MaxTokens
	}
	if opts.Threads <= 0 {
		opts.Threads = min(runtime.NumCPU(), 8)
	}
	if opts.BatchTokens <= 0 {
		opts.BatchTokens = DefaultBatchTokens
	}
	e := &Encoder{Config: cfg, opts: opts, tok: tok}
	if err := e.setLayout(); err != nil {
		return nil, fmt.Errorf("encoder: %s: %w", path, err)
	}
	if opts.MaxTokens <= len(e.prefix)+len(e.suffix) {
		return nil, fmt.Errorf("encoder: max tokens %d leaves no room for text", opts.MaxTokens)
	}
	sum, err := models.SHA256File(path)
	if err != nil {
		return nil, fmt.Errorf("encoder: %w", err)
	}
	e.id = fmt.Sprintf("%s-%s|%s|max%d", cfg.Name, sum[:12], e.opts.Layout, opts.MaxTokens)
	if e.net, err = ggml.LoadEncoder(path, cfg.params(), ggml.Options{Threads: opts.Threads}); err != nil {
		return nil, fmt.Errorf("encoder: %w", err)
	}
	return e, nil
}

// setLayout resolves the layout and its special tokens.
func (e *Encoder) setLayout() error {
	l := e.opts.Layout
	_, hasMode := e.tok.TokenID("<encoder-only>")
	if l == LayoutAuto {
		l = LayoutModel
		if e.Config.Family == "roberta" && hasMode {
			l = LayoutEncoderOnly
		}
	}
	e.opts.Layout = l
	if l == LayoutModel {
		e.model = true
		return nil
	}
	if e.Config.Family != "roberta" {
		return fmt.Errorf("layout %s is for RoBERTa (UniXcoder) models, not %s", l, e.Config.Family)
	}
	var ids []int32
	for _, s := range []string{"<s>", "<encoder-only>", "</s>"} {
		if s == "<encoder-only>" && l == LayoutPlain {
			continue
		}
		id, ok := e.tok.TokenID(s)
		if !ok {
			return fmt.Errorf("layout %s needs the token %s, which the vocabulary lacks", l, s)
		}
		ids = append(ids, id)
	}
	e.prefix, e.suffix = ids, ids[len(ids)-1:]
	return nil
}

// ID names the model file (name and content hash), the input layout and
// the length cut, so vectors of different encoders are never mixed.
func (e *Encoder) ID() string { return e.id }

// Dim returns the hidden size.
func (e *Encoder) Dim() int { return e.Config.Embed }

// Layout returns the input layout in effect.
func (e *Encoder) Layout() Layout { return e.opts.Layout }

// Tokenizer returns the encoder's tokenizer.
func (e *Encoder) Tokenizer() *tokenizer.Tokenizer { return e.tok }

// Close frees the weights.
func (e *Encoder) Close() {
	if e.net != nil {
		e.net.Close()
		e.net = nil
	}
}

// Tokens returns the input ids of text: the layout's special tokens around
// the text's tokens, cut at the end so the whole fits MaxTokens.
func (e *Encoder) Tokens(text string) []int32 { return e.tokens(text, tokenizer.CutEnd) }

// tokens is Tokens with the text's tokens cut as cut says.
func (e *Encoder) tokens(text string, cut tokenizer.Cut) []int32 {
	if e.model {
		return e.tok.EncodeForModelCut(text, e.opts.MaxTokens, cut)
	}
	return e.tok.EncodeFramed(text, e.opts.MaxTokens, cut, e.prefix, e.suffix)
}

// Encode tokenises the texts and returns their last hidden layer,
// right-padded to the longest. It implements retrieve.Encoder.
func (e *Encoder) Encode(texts []string) (retrieve.TokenBatch, error) {
	return e.EncodeCut(texts, false)
}

// EncodeCut is Encode; with keepEnds a text over MaxTokens loses tokens
// from its middle instead of its end (tokenizer.CutEnds). It implements
// retrieve.CutEncoder.
func (e *Encoder) EncodeCut(texts []string, keepEnds bool) (retrieve.TokenBatch, error) {
	cut := tokenizer.CutEnd
	if keepEnds {
		cut = tokenizer.CutEnds
	}
	seqs := make([][]int32, len(texts))
	for i, t := range texts {
		seqs[i] = e.tokens(t, cut)
	}
	if len(seqs) != 1 {
		return e.EncodeIDs(seqs)
	}
	if !slices.Equal(seqs[0], e.last.ids) {
		out, err := e.EncodeIDs(seqs)
		if err != nil {
			return out, err
		}
		e.last = lastQuery{ids: seqs[0], out: out}
	}
	out := e.last.out
	out.Lengths, out.Data = slices.Clone(out.Lengths), slices.Clone(out.Data)
	return out, nil
}

// EncodeIDs runs token sequences (each at most MaxTokens long, ids within
// the vocabulary) through the encoder.
func (e *Encoder) EncodeIDs(seqs [][]int32) (retrieve.TokenBatch, error) {
	dim := e.Config.Embed
	out := retrieve.TokenBatch{Dim: dim, Lengths: make([]int, len(seqs))}
	for i, s := range seqs {
		if len(s) == 0 || len(s) > e.opts.MaxTokens {
			return retrieve.TokenBatch{}, fmt.Errorf("encoder: sequence %d has %d tokens (1..%d allowed)", i, len(s), e.opts.MaxTokens)
		}
		out.Lengths[i] = len(s)
		out.Seq = max(out.Seq, len(s))
	}
	out.Data = make([]float32, len(seqs)*out.Seq*dim)
	for _, part := range passes(out.Lengths, e.opts.BatchTokens) {
		b := ggml.EncoderBatch{Lens: make([]int, len(part))}
		for r, i := range part {
			b.Lens[r] = len(seqs[i])
			b.IDs = append(b.IDs, seqs[i]...)
		}
		h, err := e.net.Forward(b)
		if err != nil {
			return retrieve.TokenBatch{}, fmt.Errorf("encoder: %w", err)
		}
		off := 0
		for r, i := range part {
			n := b.Lens[r] * dim
			copy(out.Data[i*out.Seq*dim:][:n], h[off:off+n])
			off += n
		}
	}
	return out, nil
}

// passes sorts the sequence indices by length (the backend pads attention
// only within runs of similar length) and cuts them into forward passes of
// at most budget tokens (a longer sequence goes alone).
func passes(lens []int, budget int) [][]int {
	order := make([]int, len(lens))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return lens[a] - lens[b] })
	var out [][]int
	var cur []int
	n := 0
	for _, i := range order {
		if len(cur) > 0 && n+lens[i] > budget {
			out = append(out, cur)
			cur, n = nil, 0
		}
		cur = append(cur, i)
		n += lens[i]
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}
