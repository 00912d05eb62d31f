// Package infill is code completion at an editor's cursor: the text around
// the cursor (what llama.cpp's /infill takes) laid out in the model's
// fill-in-the-middle tokens after the repository's context, the sampler
// llama.cpp uses for it, and the rules that end a completion (stop
// strings, the indentation of a new line, a time limit after a newline).
package infill

import (
	"errors"
	"strings"

	"actor/tokenizer"
)

// Chunk is a piece of context shown before the cursor's file: an editor's
// chunk (a yanked region, part of an open or saved file) or a snippet of
// the repository.
type Chunk struct {
	// Path is the file the text comes from, as the prompt names it.
	Path string
	Text string
	// Source says where it came from ("editor", or a repository source:
	// "symbol", "block"), for the answer's description of the context.
	Source string
}

// Input is an editor's completion request at its cursor.
type Input struct {
	// Prefix is the text above the cursor's line, Middle the cursor's
	// line up to the cursor (llama.cpp's "prompt"), Suffix the rest of the
	// line and the text below.
	Prefix, Middle, Suffix string
	// Path is the file's path in its repository ("" when not known).
	Path string
	// Repo names the repository in the repository layout ("" when not
	// known).
	Repo string
	// LineLast lays Middle out after the middle token, as the start of
	// the middle the model writes, instead of at the end of the prefix
	// (llama.cpp's place). While a person types on a line only Middle
	// changes, so with it last every keystroke's prompt extends the
	// previous one and the cache holds all of it exactly; in llama.cpp's
	// layout the text after the cursor follows the typed text and is
	// computed again at every keystroke. The model writes from where
	// Middle ends either way, but less well with it last (a replayed
	// session: 25 % of lines finished exactly against 35 %; BENCHMARKS.md,
	// "An editing session replayed").
	LineLast bool
}

// Budget bounds the parts of a prompt in tokens.
type Budget struct {
	// Prefix and Suffix bound the text before and after the cursor: the
	// end of the prefix and the start of the suffix are kept. The suffix
	// shares its bound with the cursor line's text (Middle).
	Prefix, Suffix int
	// Context bounds the chunks before the cursor's file; chunks are
	// dropped from the first (farthest from the cursor) on.
	Context int
}

// LlamaCppBatch is llama.cpp's server's default logical batch (n_batch),
// which its /infill divides between the text above and below the cursor;
// DefaultPredict is the tokens a completion may write when the request
// does not say, and the room kept for them.
const (
	LlamaCppBatch  = 2048
	DefaultPredict = 128
)

// BatchBudget is llama.cpp's division of a prompt for a batch of n
// tokens and a context of ctx positions, n tokens to predict: three
// quarters of the batch for the prefix, a quarter for the suffix, and
// what the context leaves after the batch and twice the prediction for
// the chunks (llama.cpp, whose default prediction is unbounded, keeps
// ctx-batch+2 there, and its default context is the model's, 32,768 for
// Qwen2.5-Coder).
func BatchBudget(batch, ctx, predict int) Budget {
	return Budget{Prefix: 3 * (batch / 4), Suffix: batch / 4, Context: max(0, ctx-batch-2*predict)}
}

// The names llama.cpp writes when it knows neither the repository nor the
// file; the same words keep a prompt without context equal to llama.cpp's.
const (
	unknownRepo = "myproject"
	unknownFile = "filename"
)

// Prompt is a laid-out completion prompt.
type Prompt struct {
	IDs []int32
	// Chunks are the context chunks it shows, in prompt order.
	Chunks []Chunk
	// Truncated: the prefix, the suffix or the chunks were cut to fit.
	Truncated bool
}

// ErrNoFIM is returned for a model whose vocabulary has no
// fill-in-the-middle tokens.
var ErrNoFIM = errors.New("the model has no fill-in-the-middle tokens")

// Layout lays out a completion as llama.cpp's /infill does, with the
// repository-level layout when the model has its tokens:
//
//	<repo>NAME\n <sep>PATH\n TEXT ... <sep>FILE\n <pre>PREFIX MIDDLE <suf>SUFFIX <mid>
//
// the chunks in the order given (those that do not fit dropped from the
// first on, whole), without the repository tokens the chunks' texts one
// after another before <pre>. Texts are encoded as plain text: a special
// token's name in the editor's text stays text. With in.LineLast the
// cursor line's text starts the middle instead: <pre>PREFIX <suf>SUFFIX
// <mid>MIDDLE.
func Layout(tok *tokenizer.Tokenizer, in Input, chunks []Chunk, b Budget) (Prompt, error) {
	fim := tok.FIM()
	if !fim.Infill() {
		return Prompt{}, ErrNoFIM
	}
	var p Prompt
	prefix, middle, suffix, cutPrefix, cutSuffix := cut(tok, in, b)
	p.Truncated = cutPrefix || cutSuffix
	var head, file []int32
	encoded := make([][]int32, len(chunks))
	if fim.Repository() {
		repo, path := in.Repo, in.Path
		if repo == "" {
			repo = unknownRepo
		}
		if path == "" {
			path = unknownFile
		}
		head = append([]int32{fim.Repo}, tok.Encode(repo+"\n", false)...)
		file = append([]int32{fim.Sep}, tok.Encode(path+"\n", false)...)
		for i, c := range chunks {
			encoded[i] = append(append([]int32{fim.Sep}, tok.Encode(c.Path+"\n", false)...), tok.Encode(c.Text, false)...)
		}
	} else {
		for i, c := range chunks {
			encoded[i] = tok.Encode(c.Text, false)
		}
	}
	used := len(head) + len(file)
	first := len(chunks)
	for first > 0 && used+len(encoded[first-1]) <= b.Context {
		first--
		used += len(encoded[first])
	}
	p.Truncated = p.Truncated || first > 0
	var ids []int32
	if used <= b.Context { // else not even the headers fit: no context at all
		ids = append(ids, head...)
		for i := first; i < len(chunks); i++ {
			ids = append(ids, encoded[i]...)
			p.Chunks = append(p.Chunks, chunks[i])
		}
		ids = append(ids, file...)
	}
	if tok.AddsBOS() {
		ids = append(ids, tok.BOS())
	}
	ids = append(append(ids, fim.Prefix), prefix...)
	if !in.LineLast {
		ids = append(ids, middle...)
	}
	ids = append(append(ids, fim.Suffix), suffix...)
	ids = append(ids, fim.Middle)
	if in.LineLast {
		ids = append(ids, middle...)
	}
	p.IDs = ids
	return p, nil
}

// cut encodes prefix, cursor line and suffix and trims them as
// llama.cpp's /infill does: the last b.Prefix tokens of the prefix, the
// first b.Suffix-2-len(middle) tokens of the suffix (the suffix shares its
// quarter with the cursor line's text and two FIM tokens). cutPrefix and
// cutSuffix say whether each was trimmed.
func cut(tok *tokenizer.Tokenizer, in Input, b Budget) (prefix, middle, suffix []int32, cutPrefix, cutSuffix bool) {
	prefix = tok.Encode(in.Prefix, false)
	middle = tok.Encode(in.Middle, false)
	suffix = tok.Encode(in.Suffix, false)
	if n := max(0, b.Prefix); len(prefix) > n {
		prefix, cutPrefix = prefix[len(prefix)-n:], true
	}
	if n := max(0, b.Suffix-2-len(middle)); len(suffix) > n {
		suffix, cutSuffix = suffix[:n], true
	}
	return prefix, middle, suffix, cutPrefix, cutSuffix
}

// Shown narrows a cursor to the text a prompt with budget b shows of it
// (middle is the cursor line's text up to the cursor), so that the
// repository's context leaves out only what the model sees: where the
// prefix is trimmed, Prefix becomes the part kept and Above the number of
// whole lines of the file in it; where the suffix is trimmed, Suffix the
// part kept and Below its whole lines after the cursor's.
func (c Cursor) Shown(tok *tokenizer.Tokenizer, middle string, b Budget) Cursor {
	prefix, _, suffix, cutPrefix, cutSuffix := cut(tok, Input{Prefix: c.Prefix, Middle: middle, Suffix: c.Suffix}, b)
	if cutPrefix {
		kept := tok.Decode(prefix)
		c.Above = strings.Count(kept, "\n")
		// the first line kept is whole only when what was cut ends a line
		if dropped, ok := strings.CutSuffix(c.Prefix, kept); !ok || !strings.HasSuffix(dropped, "\n") {
			c.Above = max(0, c.Above-1)
		}
		c.Prefix = kept
	}
	if cutSuffix {
		// the first newline ends the cursor's line; the last line kept is
		// cut
		c.Suffix = tok.Decode(suffix)
		c.Below = max(0, strings.Count(c.Suffix, "\n")-1)
	}
	return c
}
