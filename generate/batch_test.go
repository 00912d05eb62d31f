package generate

import (
	"runtime"
	"slices"
	"testing"

	"actor/engine"
	"actor/index"
	"actor/internal/testsupport"
	"actor/retrieve"
	"actor/tokenizer"
)

// sameSamples fails unless batched and sequential samples agree token for
// token (every attempt's events, triggers and changes).
func sameSamples(t *testing.T, seq, bat []*Sample) {
	t.Helper()
	if len(seq) != len(bat) {
		t.Fatalf("%d batched samples, %d sequential", len(bat), len(seq))
	}
	for i := range seq {
		a, b := seq[i], bat[i]
		if a.Code != b.Code || a.Prompt != b.Prompt || a.Trace.Generated != b.Trace.Generated || a.Trace.Triggers != b.Trace.Triggers ||
			a.Trace.ContextChanges != b.Trace.ContextChanges || len(a.Trace.Attempts) != len(b.Trace.Attempts) {
			t.Errorf("sample %d: batched %q (%d tokens, %d changes), sequential %q (%d tokens, %d changes)",
				i, b.Code, b.Trace.Generated, b.Trace.ContextChanges, a.Code, a.Trace.Generated, a.Trace.ContextChanges)
			continue
		}
		for k, at := range a.Trace.Attempts {
			ids := func(a Attempt) []int32 {
				var out []int32
				for _, e := range a.Events {
					out = append(out, e.ID)
				}
				return out
			}
			if bt := b.Trace.Attempts[k]; !slices.Equal(ids(at), ids(bt)) || at.Seed != bt.Seed {
				t.Errorf("sample %d attempt %d: tokens %v, sequential %v", i, k, ids(bt), ids(at))
			}
		}
	}
}

// tokens sums the engine work of samples.
func work(ss []*Sample) (w Stats) {
	for _, s := range ss {
		for _, a := range s.Trace.Attempts {
			w = w.plus(a.Work)
		}
	}
	return w
}

// sampledTiny is the tiny model, its repository's corpus and a sampling
// configuration (temperature 1, seed 3) for tests of several samples.
func sampledTiny(t *testing.T) (*engine.Model, *tokenizer.Tokenizer, *Corpus, Config) {
	t.Helper()
	m, tok := loadTiny(t)
	c, err := ReadCorpus(testsupport.WriteTree(t, t.TempDir(), tinyRepo), index.WalkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := tinyConfig()
	cfg.Temperature, cfg.Seed = 1, 3
	return m, tok, c, cfg
}

// Batched samples of RawRAG and of ACToR (always critical, the context
// switching once per sample) are the sequential ones, token for token;
// the prompt is computed once instead of once per sample, and the lanes'
// steps share forward passes.
func TestGenerateSamplesBatchedEqualsSequential(t *testing.T) {
	m, tok, c, cfg := sampledTiny(t)
	var err error
	samples := []int{0, 1, 2, 3, 4}
	for _, method := range []string{MethodRawRAG, MethodACToR} {
		run := func(batch bool) ([]*Sample, *Decoder) {
			d := newDecoder(t, m, tok)
			r := &switchRetriever{prompt: tinyTarget.Prompt, first: block(blockOf(t, c, "lib/text.py")), second: block(blockOf(t, c, "lib/math.py"))}
			g := NewRawRAG(d, cfg, r)
			if method == MethodACToR {
				if g, err = NewACToR(d, cfg, r, ACToROptions{Probe: testsupport.ConstProbe(m.Config.Embed, 10)}); err != nil {
					t.Fatal(err)
				}
			}
			out, err := GenerateSamples(t.Context(), g, tinyTarget, samples, batch, nil)
			if err != nil {
				t.Fatal(err)
			}
			return out, d
		}
		seq, dSeq := run(false)
		bat, dBat := run(true)
		sameSamples(t, seq, bat)
		ws, wb := work(seq), work(bat)
		prompt := seq[0].Trace.Attempts[0].PromptTokens
		t.Logf("%s: sequential work %+v, batched %+v", method, ws, wb)
		// The sequential decoder reuses its cached prompt for the next
		// sample; the lanes copy it from the lane that computes it: the
		// same work, the prompt computed once.
		if wb != ws || dBat.Stats() != wb || dSeq.Stats() != ws {
			t.Errorf("%s: batched lanes did %+v (decoder %+v), sequential %+v", method, wb, dBat.Stats(), ws)
		}
		if method == MethodRawRAG && wb.Evaluated != prompt+len(samples)-1+wb.Steps {
			t.Errorf("rawrag: lanes evaluated %d tokens: not the %d-token prompt once, the last token for the other lanes and %d steps", wb.Evaluated, prompt, wb.Steps)
		}
		if method == MethodACToR && bat[0].Trace.ContextChanges == 0 {
			t.Errorf("ACToR lanes never changed context")
		}
	}
}

// A second batched call reuses the lanes of the first (their caches still
// allocated) and gives the same samples; the decoder's work is the sum of
// the calls' work.
func TestGenerateSamplesReusesLanes(t *testing.T) {
	m, tok, c, cfg := sampledTiny(t)
	var err error
	d := newDecoder(t, m, tok)
	r := &switchRetriever{prompt: tinyTarget.Prompt, first: block(blockOf(t, c, "lib/text.py")), second: block(blockOf(t, c, "lib/math.py"))}
	g, err := NewACToR(d, cfg, r, ACToROptions{Probe: testsupport.ConstProbe(m.Config.Embed, 10)})
	if err != nil {
		t.Fatal(err)
	}
	samples := []int{0, 1, 2}
	first, err := GenerateSamples(t.Context(), g, tinyTarget, samples, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	lanes := slices.Clone(d.lanes)
	second, err := GenerateSamples(t.Context(), g, tinyTarget, samples, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameSamples(t, first, second)
	if len(lanes) != len(samples) || !slices.Equal(lanes, d.lanes) {
		t.Errorf("lanes %p, then %p: not kept", lanes, d.lanes)
	}
	if w := work(first).plus(work(second)); d.Stats() != w {
		t.Errorf("decoder work %+v, the calls' %+v", d.Stats(), w)
	}
}

// A single sample, or batching off, is plain sequential generation.
func TestGenerateSamplesSequential(t *testing.T) {
	m, tok := loadTiny(t)
	cfg := tinyConfig()
	cfg.Temperature, cfg.Seed = 1, 3
	g := NewRawPrompt(newDecoder(t, m, tok), cfg)
	one, err := GenerateSamples(t.Context(), g, tinyTarget, []int{2}, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := g.Generate(t.Context(), tinyTarget, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(one) != 1 || one[0].Code != direct.Code {
		t.Errorf("one batched sample %q, direct %q", one[0].Code, direct.Code)
	}
}

// Lanes whose context fills stop as sequential samples do.
func TestGenerateSamplesContextFull(t *testing.T) {
	m, tok := loadModel(t, tinyModel, engine.Options{Threads: 1, F32Cache: true, ContextLength: 48})
	cfg := tinyConfig()
	cfg.Temperature, cfg.Seed, cfg.Retries, cfg.MaxNewTokens = 1, 3, 0, 40
	// A 31-token prompt: every sample fills the 48 positions.
	seq, err := GenerateSamples(t.Context(), NewRawPrompt(newDecoder(t, m, tok), cfg), tinyTarget, []int{0, 1, 2}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	bat, err := GenerateSamples(t.Context(), NewRawPrompt(newDecoder(t, m, tok), cfg), tinyTarget, []int{0, 1, 2}, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameSamples(t, seq, bat)
	for i, s := range bat {
		// 17 steps fill it; the token sampled after the last one is kept.
		if a := s.Trace.Attempts[0]; a.Stop != "context" || a.Tokens != 48-31+1 {
			t.Errorf("sample %d: stop %q after %d tokens, want the context full after %d", i, a.Stop, a.Tokens, 48-31+1)
		}
	}
}

// On SmolLM2 batched samples equal sequential ones too (seeded sampling
// at the paper's temperature).
func TestGenerateSamplesSmolLM2(t *testing.T) {
	path := testsupport.Model(t, "smollm2-135m")
	m, tok := loadModel(t, path, engine.Options{Threads: 2, ContextLength: 256})
	cfg := DefaultConfig
	cfg.MaxNewTokens, cfg.Seed = 16, 11
	tg := retrieve.Target{ID: "t", Path: "util.py", Prompt: "def mean(values):\n    \"\"\"Return the arithmetic mean of values.\"\"\"\n"}
	run := func(batch bool) []*Sample {
		d, err := NewDecoder(m, tok, DecoderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		out, err := GenerateSamples(t.Context(), NewRawPrompt(d, cfg), tg, []int{0, 1, 2}, batch, nil)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	seq := run(false)
	sameSamples(t, seq, run(true))
	lengths := map[int]bool{}
	for _, s := range seq {
		lengths[s.Trace.Generated] = true
	}
	if len(lengths) < 2 {
		t.Errorf("every sample has the same length: lanes never left at different times")
	}
}

// Whatever order the lanes' requests arrive in, lane 0 computes a shared
// prompt and the others copy it, as the first sample computes it in
// sequential generation (prompt rows computed in a chunk may round
// differently from rows computed alone on quantised models).
func TestBatcherRunsLanesInOrder(t *testing.T) {
	m, tok := loadTiny(t)
	prompt := tok.Encode(tinyTarget.Prompt, true)
	for _, arrival := range [][]int{{2, 1, 0}, {1, 0, 2}, {0, 2, 1}} {
		b := &batcher{m: m, lanes: 3}
		ss := make([]*engine.Session, 3)
		for i := range ss {
			s, err := m.NewSession()
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ss[i] = s
		}
		done := make(chan error, 3)
		for k, lane := range arrival {
			go func() {
				_, err := b.do(lane, ss[lane], prompt)
				done <- err
			}()
			for { // the next lane posts only after this one waits
				b.mu.Lock()
				n := len(b.waiting)
				b.mu.Unlock()
				if n == k+1 || k == 2 {
					break
				}
				runtime.Gosched()
			}
		}
		for range 3 {
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
		if ss[0].Computed() != len(prompt) || ss[1].Computed() != 1 || ss[2].Computed() != 1 {
			t.Errorf("arrival %v: lanes computed %d, %d, %d tokens; want lane 0 the %d-token prompt, the others its last token",
				arrival, ss[0].Computed(), ss[1].Computed(), ss[2].Computed(), len(prompt))
		}
	}
}
