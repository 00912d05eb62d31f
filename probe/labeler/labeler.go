// Package labeler drives critical-token labelling: for each training
// function, one teacher-forced pass of the decoder over prompt + body gives,
// per body token, the greedy prediction, entropy, log-probability, final
// hidden state and last-layer attention; the tokens are labelled by the
// three rules and appended to a labels directory, resumably. The decoder
// and tokenizer come in through two small interfaces, so this package does
// not depend on the engine.
package labeler

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"actor/probe/critical"
	"actor/probe/labelstore"
	"actor/probe/trainset"
)

// Tokenizer is what labelling needs from a tokenizer
// (*tokenizer.Tokenizer satisfies it).
type Tokenizer interface {
	// Encode tokenizes text; addSpecial adds the model's BOS if it uses one.
	Encode(text string, addSpecial bool) []int32
	// Piece returns the bytes a token stands for ("" for special tokens).
	Piece(id int32) string
}

// Scored is one teacher-forced pass over prompt + target. Entry i of every
// slice but Attention is about target token i, read at the position that
// produces it (the previous one). Its layout is that of engine.Scores, so
// labeler.Scored(*s) converts one.
type Scored struct {
	Top1    []int32     // greedy prediction
	Entropy []float64   // entropy of the next-token distribution, nats
	LogProb []float64   // ln p(target token)
	Hidden  [][]float32 // final hidden state after the final norm
	// Attention[j][i], i < j, is the last-layer attention, averaged over
	// heads, that target token j pays to target token i (len j).
	Attention [][]float32
}

// Scorer runs the teacher-forced pass (engine.Session.Score).
type Scorer interface {
	Score(prompt, target []int32) (*Scored, error)
}

// Options configure a labelling run.
type Options struct {
	Rules critical.Rules
	// MaxTarget caps the body tokens labelled per function (0: no cap).
	MaxTarget int
	// Context is the decoder's context length: the body is cut so that
	// prompt + body fit; a prompt that leaves no room skips the function.
	Context int
	// AddBOS encodes the prompt with the model's BOS token. The authors
	// label without special tokens (add_special_tokens=False).
	AddBOS bool
	// Prompt builds the prompt text of a function; nil: NoRetrieval. It
	// may rewrite the sample's Prompt and Body to the text generation
	// works with (a method as indented in its file). An error wrapping
	// ErrSkip skips the function with a warning.
	Prompt func(*trainset.Sample) (string, error)
	// Heal moves the prompt's final newline to the front of the body, as
	// generation leaves that newline for the model to write (see
	// generate.Config.HealNewline): the body is then labelled as the
	// model produces it, its first token a newline with the indentation
	// (the stored prefix stays the signature and docstring as given).
	Heal bool
	// Progress, if set, is called after each function (done of total,
	// counting functions already stored by an earlier run).
	Progress func(done, total int)
	// Warn receives one-line warnings (skipped functions); nil: dropped.
	Warn func(string)
}

// ErrSkip marks a function its prompt cannot be built for (Options.Prompt).
var ErrSkip = errors.New("skipped")

// NoRetrieval is the prompt without repository context: METHOD.md §3's
// layout with no retrieved block, "# file path: {path}\n\n" and the
// signature and docstring.
func NoRetrieval(s *trainset.Sample) (string, error) {
	return "# file path: " + s.Path + "\n\n" + s.Prompt, nil
}

// Summary counts what a run did.
type Summary struct {
	Done, Skipped, Labelled, Tokens, Critical int
}

// Run labels every function of samples not yet in w. When ctx is
// cancelled it stops between functions (everything stored stays complete)
// and returns ctx's error.
func Run(ctx context.Context, samples []trainset.Sample, tok Tokenizer, sc Scorer, w *labelstore.Writer, o Options) (Summary, error) {
	var sum Summary
	if o.Prompt == nil {
		o.Prompt = NoRetrieval
	}
	warn := func(format string, a ...any) {
		if o.Warn != nil {
			o.Warn(fmt.Sprintf(format, a...))
		}
	}
	for i, s := range samples {
		if o.Progress != nil && i > 0 {
			o.Progress(i, len(samples))
		}
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		if w.Done(s.ID) {
			sum.Done++
			continue
		}
		text, err := o.Prompt(&s)
		if errors.Is(err, ErrSkip) {
			warn("sample %s: %v", s.ID, err)
			sum.Skipped++
			continue
		}
		if err != nil {
			return sum, fmt.Errorf("sample %s: prompt: %w", s.ID, err)
		}
		if o.Heal && strings.HasSuffix(text, "\n") {
			text, s.Body = strings.TrimSuffix(text, "\n"), "\n"+s.Body
		}
		prompt := tok.Encode(text, o.AddBOS)
		target := tok.Encode(s.Body, false)
		if o.MaxTarget > 0 && len(target) > o.MaxTarget {
			target = target[:o.MaxTarget]
		}
		if o.Context > 0 && len(prompt)+len(target) > o.Context {
			if room := o.Context - len(prompt); room < 1 {
				warn("sample %s: prompt of %d tokens leaves no room in a context of %d; skipped", s.ID, len(prompt), o.Context)
				sum.Skipped++
				continue
			} else {
				target = target[:room]
			}
		}
		if len(prompt) == 0 || len(target) == 0 {
			warn("sample %s: empty prompt or body after tokenization; skipped", s.ID)
			sum.Skipped++
			continue
		}
		scored, err := sc.Score(prompt, target)
		if err != nil {
			return sum, fmt.Errorf("sample %s: %w", s.ID, err)
		}
		smp, toks, hidden, err := Label(s, len(prompt), target, scored, tok, o.Rules)
		if err != nil {
			return sum, fmt.Errorf("sample %s: %w", s.ID, err)
		}
		if err := w.Add(smp, toks, hidden); err != nil {
			return sum, err
		}
		sum.Labelled++
		sum.Tokens += len(toks)
		for _, t := range toks {
			if t.Critical {
				sum.Critical++
			}
		}
	}
	if o.Progress != nil {
		o.Progress(len(samples), len(samples))
	}
	return sum, nil
}

// Label turns one scored pass into token records and hidden states. The
// stored target text is the body prefix the tokens stand for; byte spans
// are exact when the tokens' bytes spell that prefix, else −1.
func Label(s trainset.Sample, promptTokens int, target []int32, sc *Scored, tok Tokenizer, r critical.Rules) (labelstore.Sample, []labelstore.Token, [][]float32, error) {
	T := len(target)
	if len(sc.Top1) != T || len(sc.Entropy) != T || len(sc.LogProb) != T || len(sc.Hidden) != T || len(sc.Attention) != T {
		return labelstore.Sample{}, nil, nil, fmt.Errorf("scorer returned %d/%d/%d/%d/%d rows for %d target tokens",
			len(sc.Top1), len(sc.Entropy), len(sc.LogProb), len(sc.Hidden), len(sc.Attention), T)
	}
	for j, row := range sc.Attention {
		if len(row) != j {
			return labelstore.Sample{}, nil, nil, fmt.Errorf("attention row %d has %d entries, want %d", j, len(row), j)
		}
	}
	pieces := make([]string, T)
	for i, id := range target {
		pieces[i] = tok.Piece(id)
	}
	spelled := strings.Join(pieces, "")
	exact := strings.HasPrefix(s.Body, spelled)
	targetText := s.Body
	if exact {
		targetText = spelled
	}
	toks := make([]labelstore.Token, T)
	col := make([]float32, 0, T)
	off := 0
	for i, id := range target {
		col = col[:0]
		for j := i + 1; j < T; j++ {
			col = append(col, sc.Attention[j][i])
		}
		st := critical.Stats{
			Target: id, Greedy: sc.Top1[i], TargetText: pieces[i], GreedyText: tok.Piece(sc.Top1[i]),
			Entropy: sc.Entropy[i], LogProb: sc.LogProb[i], Influence: critical.Influence(col, r.TopK, r.Window),
		}
		start, end := -1, -1
		if exact {
			start, end = off, off+len(pieces[i])
		}
		off += len(pieces[i])
		toks[i] = labelstore.NewToken(s.ID, i, st, r, start, end)
	}
	smp := labelstore.Sample{ID: s.ID, Repo: s.Repo, Path: s.Path, Prefix: s.Prompt, Target: targetText, PromptTokens: promptTokens}
	return smp, toks, sc.Hidden, nil
}
