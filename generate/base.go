package generate

import (
	"slices"
	"strings"
	"sync"
	"time"

	"actor/engine"
	"actor/retrieve"
)

// base is what every method shares: the decoder, the decoding rules, the
// method's name and its notes, and the initial retrieval of the last
// target (samples of one task come one after another and retrieval is
// deterministic, so it is done once per task).
type base struct {
	dec    *Decoder
	cfg    Config
	method string
	notes  []string

	memo *retrievalMemo
	fr   *framer // what the prompts show besides the blocks; nil: the authors' prompts
}

// retrievalMemo is the last retrieval of a generator, shared by its lanes
// (see GenerateSamples).
type retrievalMemo struct {
	mu      sync.Mutex
	key     string
	results []retrieve.Result
}

// Method names the method.
func (b *base) Method() string { return b.method }

// Notes says what differs from the paper's method.
func (b *base) Notes() []string { return b.notes }

// retrieveOnce returns r's blocks for query, reusing the previous result
// when the target and query are the same; ms is the time it took (0 when
// reused).
func (b *base) retrieveOnce(r Retriever, t retrieve.Target, query string) ([]retrieve.Result, float64, error) {
	if b.memo == nil {
		b.memo = &retrievalMemo{}
	}
	m := b.memo
	m.mu.Lock()
	defer m.mu.Unlock()
	key := t.ID + "\x00" + t.Path + "\x00" + t.Prompt + "\x00" + query
	if key == m.key {
		return m.results, 0, nil
	}
	start := time.Now()
	res, err := r.Retrieve(query, t.Exclusion)
	if err != nil {
		return nil, 0, err
	}
	m.key, m.results = key, res
	return res, msSince(start), nil
}

// onLane returns a copy of b that decodes with d and shares b's memo.
func (b *base) onLane(d *Decoder) base {
	if b.memo == nil {
		b.memo = &retrievalMemo{}
	}
	c := *b
	c.dec = d
	return c
}

// decoder returns the generator's decoder.
func (b *base) decoder() *Decoder { return b.dec }

// contextPrompt lays the blocks out best first, farthest from the target:
// the authors' ACToR layout, or the method's frame (ContextOptions).
func (b *base) contextPrompt(res []retrieve.Result, t retrieve.Target) (retrieve.Prompt, error) {
	if b.fr == nil {
		return ContextPrompt(res, t, b.dec.tok, b.cfg.Budget)
	}
	fr, err := b.fr.frame(t, false)
	if err != nil {
		return retrieve.Prompt{}, err
	}
	return fr.Ranked(res, b.counter(fr), b.cfg.Budget)
}

// counter counts tokens as the frame's prompts are encoded.
func (b *base) counter(fr *retrieve.Frame) TokenCounter {
	return TokenCounter{Tok: b.dec.tok, Special: fr.Special()}
}

// withContext makes the method's prompts show what o asks for, from the
// corpus c.
func (b *base) withContext(o ContextOptions, c *Corpus) {
	b.fr = &framer{opt: o, corpus: c, tok: b.dec.tok}
	b.notes = append(slices.Clip(b.notes), o.notes()...)
}

// newSample starts a sample's record.
func (b *base) newSample(t retrieve.Target, sample int) *Sample {
	return &Sample{Trace: Trace{Task: t.ID, Sample: sample, Method: b.method, Notes: b.notes}}
}

// attempts decodes stage of a sample until its body is neither empty nor
// a bare pass, at most 1 + Retries times (the last body is kept whatever
// it is); run decodes one attempt with its seeded sampler.
func (b *base) attempts(s *Sample, t retrieve.Target, stage string, stageNo int, retries int, run func(*Attempt, *engine.Sampler) (string, error)) (string, error) {
	for n := 0; ; n++ {
		smp, seed := b.cfg.sampler(t, s.Trace.Sample, stageNo, n)
		a := Attempt{Stage: stage, Attempt: n, Seed: seed}
		body, err := run(&a, smp)
		if err != nil {
			return "", err
		}
		a.Body = body
		if r := retryReason(body); r != "" && n < retries {
			a.Retry = r
		}
		s.Trace.Attempts = append(s.Trace.Attempts, a)
		s.Trace.Generated += a.Tokens
		s.Decode += time.Duration(a.DecodeMs * float64(time.Millisecond))
		s.Trace.Triggers += a.Triggers
		s.Trace.ContextChanges += a.ContextChanges
		if a.Retry == "" {
			s.Trace.Tokens = a.Tokens
			return body, nil
		}
	}
}

// finish fills the sample's summary.
func (s *Sample) finish(body, prompt string, start time.Time) *Sample {
	s.Code, s.Prompt = body, prompt
	s.Elapsed = time.Since(start)
	tr := &s.Trace
	tr.Judged, tr.ProbeMs, tr.RetrieveMs, tr.ReprefillMs, tr.ReprefillTokens = 0, 0, 0, 0, 0
	for _, a := range tr.Attempts {
		tr.Judged += a.Judged
		for _, ev := range a.Events {
			tr.ProbeMs += ev.ProbeUs / 1000
			tr.RetrieveMs += ev.RetrieveMs
			tr.ReprefillMs += ev.PrefillMs
			tr.ReprefillTokens += ev.Reprefilled
		}
	}
	tr.Seconds = s.Elapsed.Seconds()
	tr.MsPerToken = s.MsPerToken()
	return s
}

// lastLines returns the last n lines of text (a trailing newline ends the
// last line rather than starting an empty one), non-empty ones only when
// nonEmpty is set.
func lastLines(text string, n int, nonEmpty bool) string {
	lines := splitLines(text, nonEmpty)
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// firstLines returns the first n lines of text.
func firstLines(text string, n int) string {
	lines := splitLines(text, false)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

func splitLines(text string, nonEmpty bool) []string {
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if !nonEmpty {
		return lines
	}
	out := lines[:0:0]
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out
}
