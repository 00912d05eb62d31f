package generate

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"actor/engine"
)

// Observe sees every event of the trace, in order, as it is recorded: the
// context change with its blocks included.
func TestObserveSeesEveryEvent(t *testing.T) {
	var seen []TokenEvent
	var stages []string
	_, _, s, _, _ := swapSetup(t, DecoderOptions{}, func(a *Attempt, ev *TokenEvent) error {
		seen = append(seen, *ev)
		stages = append(stages, a.Stage)
		return nil
	})
	var want []TokenEvent
	for _, a := range s.Trace.Attempts {
		want = append(want, a.Events...)
	}
	if len(seen) != len(want) || len(seen) == 0 {
		t.Fatalf("observed %d events, the trace has %d", len(seen), len(want))
	}
	changed := 0
	for i := range want {
		if seen[i].ID != want[i].ID || seen[i].Changed != want[i].Changed || len(seen[i].After) != len(want[i].After) || stages[i] != "generate" {
			t.Errorf("event %d: observed %+v, traced %+v", i, seen[i], want[i])
		}
		if seen[i].Changed {
			changed++
		}
	}
	if changed != 1 {
		t.Errorf("%d context changes observed, want 1", changed)
	}
}

// An error of Observe ends the sample at once with that error.
func TestObserveErrorCancels(t *testing.T) {
	stop := errors.New("client gone")
	m, tok := loadTiny(t)
	d := newDecoder(t, m, tok)
	n := 0
	obs := func(*Attempt, *TokenEvent) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	}
	cfg := tinyConfig()
	cfg.MaxNewTokens = 50
	_, err := NewRawPrompt(d, cfg).Generate(t.Context(), tinyTarget, 0, obs)
	if !errors.Is(err, stop) || n != 3 {
		t.Errorf("error %v after %d events, want %v after 3", err, n, stop)
	}
}

// Continue samples up to the limit, each token from the distribution
// before it, and a second call on the same session (its prompt cached)
// continues the same way.
func TestContinue(t *testing.T) {
	m, tok := loadTiny(t)
	s, err := m.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ids := tok.Encode("def run(x):\n", true)
	run := func() ([]int32, string, string) {
		var got []int32
		var text strings.Builder
		stop, err := Continue(s, tok, ids, engine.NewSampler(engine.SamplerConfig{}), 6, func(st Step) error {
			if st.ID >= 0 {
				if st.ID != st.Pred.Top1 {
					t.Errorf("greedy token %d, the distribution's top %d", st.ID, st.Pred.Top1)
				}
				got = append(got, st.ID)
			}
			text.WriteString(st.Text)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got, text.String(), stop
	}
	got, text, stop := run()
	if stop != "max" && stop != "eog" || stop == "max" && len(got) != 6 {
		t.Fatalf("stop %q after %d tokens", stop, len(got))
	}
	sd := tok.NewStreamDecoder() // the tokens' text, unfinished characters as U+FFFD
	var want strings.Builder
	for _, id := range got {
		want.WriteString(sd.Add(id))
	}
	if want.WriteString(sd.Flush()); text != want.String() {
		t.Errorf("streamed %q, decoded %q", text, want.String())
	}
	again, _, _ := run()
	if !slices.Equal(got, again) {
		t.Errorf("second run %v, first %v", again, got)
	}
	gone := errors.New("gone")
	if _, err := Continue(s, tok, ids, engine.NewSampler(engine.SamplerConfig{}), 6, func(Step) error { return gone }); !errors.Is(err, gone) {
		t.Errorf("callback error: got %v", err)
	}
	if _, err := Continue(s, tok, nil, engine.NewSampler(engine.SamplerConfig{}), 6, nil); err == nil {
		t.Error("an empty prompt was accepted")
	}
}

// DecodeJudged: a judge that redraws the second token from another
// prompt's prediction (the session prefilled with that prompt and the
// first token, as ACToR's context change does) gets that prediction's
// greedy token, and decoding goes on from the new session state; a judge
// that keeps every token decodes as Decode.
func TestDecodeJudgedRedraws(t *testing.T) {
	m, tok := loadTiny(t)
	s, err := m.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	greedy := func() TokenSampler { return engine.NewSampler(engine.SamplerConfig{}) }
	ids, other := tok.Encode("def run(x):\n", true), tok.Encode("class Box:\n    size = 3\n", true)
	decode := func(judge Judge) []int32 {
		pred, err := s.Prefill(ids)
		if err != nil {
			t.Fatal(err)
		}
		var got []int32
		if _, err := DecodeJudged(s, tok, pred, greedy(), 5, judge, func(st Step) error {
			if st.ID >= 0 && !tok.EOG(st.ID) {
				got = append(got, st.ID)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	plain := decode(nil)
	if kept := decode(func(int, int32, *engine.Prediction) (*engine.Prediction, error) { return nil, nil }); !slices.Equal(kept, plain) {
		t.Fatalf("a judge keeping every token: %v, Decode %v", kept, plain)
	}
	var want int32
	redrawn := decode(func(n int, _ int32, _ *engine.Prediction) (*engine.Prediction, error) {
		if n != 1 {
			return nil, nil
		}
		again, err := s.Prefill(append(slices.Clone(other), plain[0]))
		want = again.Top1
		return &again, err
	})
	if len(redrawn) < 2 || redrawn[0] != plain[0] || redrawn[1] != want {
		t.Fatalf("redrawn %v (plain %v): want %d second, the other prompt's top token", redrawn, plain, want)
	}
	// the rest follows the other prompt: the same as decoding it plainly
	pred, err := s.Prefill(append(append(slices.Clone(other), plain[0]), want))
	if err != nil {
		t.Fatal(err)
	}
	var after []int32
	DecodeJudged(s, tok, pred, greedy(), len(redrawn)-2, nil, func(st Step) error {
		if st.ID >= 0 && !tok.EOG(st.ID) {
			after = append(after, st.ID)
		}
		return nil
	})
	if !slices.Equal(after, redrawn[2:]) {
		t.Errorf("after the redraw %v, decoding the other prompt plainly %v", redrawn[2:], after)
	}
}

// A context cancelled while a sample decodes ends it at the next token
// with the context's error; a context already done prefills nothing.
func TestCancelledContextEndsSample(t *testing.T) {
	m, tok := loadTiny(t)
	d := newDecoder(t, m, tok)
	cfg := tinyConfig()
	cfg.MaxNewTokens = 50
	ctx, cancel := context.WithCancel(t.Context())
	n := 0
	obs := func(*Attempt, *TokenEvent) error {
		if n++; n == 3 {
			cancel()
		}
		return nil
	}
	_, err := NewRawPrompt(d, cfg).Generate(ctx, tinyTarget, 0, obs)
	if !errors.Is(err, context.Canceled) || n != 3 {
		t.Errorf("error %v after %d events, want %v after 3", err, n, context.Canceled)
	}
	before := d.Stats()
	if _, err := NewRawPrompt(d, cfg).Generate(ctx, tinyTarget, 1, nil); !errors.Is(err, context.Canceled) || d.Stats() != before {
		t.Errorf("a done context: error %v, work %+v after %+v", err, d.Stats(), before)
	}
}
