package generate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"actor/engine"
	"actor/retrieve"
)

// laned is a generator that can run on another decoder: every method of
// this package.
type laned interface {
	Generator
	decoder() *Decoder
	// lane returns a copy of the generator decoding with d, its
	// retrievers wrapped by wrap, sharing the initial-retrieval memo.
	lane(d *Decoder, wrap func(Retriever) Retriever) Generator
}

func (g *oneShot) lane(d *Decoder, wrap func(Retriever) Retriever) Generator {
	c := *g
	c.base = g.onLane(d)
	if c.r != nil {
		c.r = wrap(c.r)
	}
	return &c
}

func (g *repoCoder) lane(d *Decoder, wrap func(Retriever) Retriever) Generator {
	c := *g
	c.base, c.r = g.onLane(d), wrap(g.r)
	return &c
}

func (g *actor) lane(d *Decoder, wrap func(Retriever) Retriever) Generator {
	c := *g
	c.base, c.r = g.onLane(d), wrap(g.r)
	return &c
}

// GenerateSamples generates the given samples of one target with g. With
// batch set and several samples they decode together, each in its own lane:
// its own goroutine running the method's loop (retries, ACToR's critical
// tokens and context changes included) over its own KV caches, with every
// prefill and step of the lanes gathered into shared forward passes
// (engine.Model.PrefillBatch): the shared prompt is prefilled once, the
// lanes step three to a pass and re-prefills after context changes run in
// passes of their own between the others' steps. Seeds, and on the CPU the
// logits, are those of sequential generation, so the samples are too,
// except that after an ACToR context change a sequential sample can reuse
// KV rows another sample computed (its caches serve all samples) where a
// lane reuses its own, and reused rows round by the pass that computed
// them; the samples' timings overlap (each lane's wall time). Retrievals of the lanes take
// turns. Otherwise the samples are generated one after another.
func GenerateSamples(ctx context.Context, g Generator, t retrieve.Target, samples []int, batch bool, obs Observer) ([]*Sample, error) {
	out := make([]*Sample, len(samples))
	lg, ok := g.(laned)
	if !batch || len(samples) < 2 || !ok {
		for i, s := range samples {
			var err error
			if out[i], err = g.Generate(ctx, t, s, obs); err != nil {
				return nil, fmt.Errorf("sample %d: %w", s, err)
			}
		}
		return out, nil
	}
	parent := lg.decoder()
	b := &batcher{m: parent.model, lanes: len(samples)}
	var mu sync.Mutex
	wrap := func(r Retriever) Retriever { return lockedRetriever{mu: &mu, r: r} }
	lanes, err := parent.laneDecoders(len(samples), b)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, d := range lanes {
			parent.stats = parent.stats.plus(d.stats)
			d.stats, d.batch = Stats{}, nil
		}
	}()
	gens := make([]Generator, len(samples))
	for i, d := range lanes {
		gens[i] = lg.lane(d, wrap)
	}
	errs := make([]error, len(samples))
	var wg sync.WaitGroup
	for i, s := range samples {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer b.leave()
			if out[i], errs[i] = gens[i].Generate(ctx, t, s, obs); errs[i] != nil {
				errs[i] = fmt.Errorf("sample %d: %w", s, errs[i])
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// laneDecoders returns n lane decoders for one GenerateSamples call, with
// d's settings and batcher b: those of the last call where there are (a
// task's five lanes would otherwise allocate and zero five sets of KV
// caches, 5–8 % of a batched task's time on the default model), new ones
// for the rest. What their caches still hold is only a prefix to reuse.
func (d *Decoder) laneDecoders(n int, b *batcher) ([]*Decoder, error) {
	for len(d.lanes) < n {
		l, err := NewDecoder(d.model, d.tok, d.opt)
		if err != nil {
			return nil, err
		}
		d.lanes = append(d.lanes, l)
	}
	lanes := d.lanes[:n]
	for i, l := range lanes {
		l.batch, l.lane = b, i
	}
	return lanes, nil
}

// lockedRetriever lets lanes retrieve one at a time.
type lockedRetriever struct {
	mu *sync.Mutex
	r  Retriever
}

// Retrieve runs the wrapped retriever under the lock.
func (l lockedRetriever) Retrieve(q string, ex retrieve.Exclusion) ([]retrieve.Result, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Retrieve(q, ex)
}

// batcher gathers the lanes' prefills and steps: when every lane still
// running waits for one, they run as one engine.Model.PrefillBatch.
type batcher struct {
	m       *engine.Model
	mu      sync.Mutex
	lanes   int // lanes still running
	waiting []*request
}

// request is a lane's wait for its session to hold seq.
type request struct {
	lane int
	sess *engine.Session
	seq  []int32
	pred engine.Prediction
	err  error
	done chan struct{}
}

// do brings the lane's session to seq together with the other lanes.
func (b *batcher) do(lane int, s *engine.Session, seq []int32) (engine.Prediction, error) {
	r := &request{lane: lane, sess: s, seq: seq, done: make(chan struct{})}
	b.mu.Lock()
	b.waiting = append(b.waiting, r)
	b.flush()
	b.mu.Unlock()
	<-r.done
	return r.pred, r.err
}

// leave ends a lane: the others no longer wait for it.
func (b *batcher) leave() {
	b.mu.Lock()
	b.lanes--
	b.flush()
	b.mu.Unlock()
}

// flush runs the waiting requests once every running lane waits (b.mu
// held), in lane order whatever order they came in: the first lane of a
// shared prompt computes it, as the first sample does sequentially, and
// the others copy it. A request that does not fit its session fails
// alone, as a session's own Prefill would.
func (b *batcher) flush() {
	if len(b.waiting) == 0 || len(b.waiting) < b.lanes {
		return
	}
	slices.SortFunc(b.waiting, func(x, y *request) int { return x.lane - y.lane })
	var ss []*engine.Session
	var seqs [][]int32
	var run []*request
	for _, r := range b.waiting {
		if n := r.sess.Capacity(); len(r.seq) > n {
			r.err = fmt.Errorf("engine: %d tokens exceed the context of %d: %w", len(r.seq), n, engine.ErrContextFull)
			close(r.done)
			continue
		}
		ss, seqs, run = append(ss, r.sess), append(seqs, r.seq), append(run, r)
	}
	b.waiting = nil
	if len(run) == 0 {
		return
	}
	preds, err := b.m.PrefillBatch(ss, seqs)
	for i, r := range run {
		if r.err = err; err == nil {
			r.pred = preds[i]
		}
		close(r.done)
	}
}

// stepSeq is the sequence a step of token t makes of a slot's tokens.
func stepSeq(cached []int32, t int32) []int32 { return append(slices.Clip(cached), t) }
