package queue

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"actor/pipeline"
	"actor/runrecord"
)

// maxRefusals is how many times one item may be refused (a worker with
// other files, a generation error) before the coordinator gives up.
const maxRefusals = 3

// Items makes the run's items from groups of jobs (pipeline.Groups).
func Items(run string, spec runrecord.Spec, groups [][]pipeline.Job) []Item {
	out := make([]Item, len(groups))
	for i, g := range groups {
		it := Item{Run: run, Spec: spec, Task: g[0].Task.ID}
		for _, j := range g {
			it.Samples = append(it.Samples, j.Sample)
		}
		out[i] = it
	}
	return out
}

// Store keeps one output durably (a predictions line written and synced,
// its trace). The coordinator acknowledges a result only after Store has
// returned for each of its new outputs.
type Store func(Output) error

// Coordinate puts a run's items on the queue and merges the workers'
// results until every prediction key of items is in done, which holds the
// keys already stored (predictions.Done) and gains those Store is called
// for: each key is stored once however often its result arrives. Results
// of the run already on the results stream (from a coordinator that died
// before merging them) are merged first, and their items are not put on
// the queue again. A refused item is logged and put back, up to
// maxRefusals times.
func (q *Queue) Coordinate(ctx context.Context, run string, items []Item, done map[string]bool, store Store, log io.Writer) error {
	cons, err := q.js.CreateOrUpdateConsumer(ctx, ResultStream, jetstream.ConsumerConfig{Durable: "merge-" + run,
		FilterSubject: resultPrefix + run, AckPolicy: jetstream.AckExplicitPolicy, AckWait: time.Minute})
	if err != nil {
		return fmt.Errorf("queue: results of run %s: %w", run, err)
	}
	m := &merger{q: q, done: done, store: store, log: log, items: map[string]*Item{}, refused: map[string]int{}}
	for {
		batch, err := cons.FetchNoWait(64)
		if err != nil {
			return err
		}
		if n, err := m.takeAll(ctx, batch); err != nil || n == 0 {
			if err != nil {
				return err
			}
			break
		}
	}
	if err := q.enqueue(ctx, run, items, m); err != nil {
		return err
	}
	// A continuous pull: no gap between requests in which a result could
	// be sent to a request its client has given up on (it would wait out
	// its ack deadline).
	it, err := cons.Messages()
	if err != nil {
		return err
	}
	defer it.Stop()
	for m.missing() > 0 {
		msg, err := it.Next(jetstream.NextContext(ctx))
		if err != nil {
			return err
		}
		if err := m.take(ctx, msg); err != nil {
			return err
		}
	}
	// The run is merged: its results and the coordinator's place on the
	// stream are no longer needed.
	if err := q.js.DeleteConsumer(ctx, ResultStream, "merge-"+run); err != nil {
		return err
	}
	s, err := q.js.Stream(ctx, ResultStream)
	if err != nil {
		return err
	}
	return s.Purge(ctx, jetstream.WithPurgeSubject(resultPrefix+run))
}

// enqueue replaces the run's items on the work queue by those with a key
// not yet done.
func (q *Queue) enqueue(ctx context.Context, run string, items []Item, m *merger) error {
	s, err := q.js.Stream(ctx, ItemStream)
	if err != nil {
		return err
	}
	if err := s.Purge(ctx, jetstream.WithPurgeSubject(itemPrefix+run)); err != nil {
		return err
	}
	for i := range items {
		it := &items[i]
		if m.isDone(it) {
			continue
		}
		m.items[it.ID()] = it
		if err := q.put(ctx, it); err != nil {
			return err
		}
	}
	return nil
}

// put publishes one item, waiting for the server to store it.
func (q *Queue) put(ctx context.Context, it *Item) error {
	data, err := encode(it)
	if err != nil {
		return err
	}
	if _, err := q.js.Publish(ctx, itemPrefix+it.Run, data); err != nil {
		return fmt.Errorf("queue: item %s: %w", it.ID(), err)
	}
	return nil
}

// merger stores a run's results.
type merger struct {
	q       *Queue
	done    map[string]bool
	store   Store
	log     io.Writer
	items   map[string]*Item // the items put on the queue, by ID
	refused map[string]int
}

func (m *merger) isDone(it *Item) bool {
	for _, k := range it.Keys() {
		if !m.done[k] {
			return false
		}
	}
	return true
}

// missing counts the queued items with a key not yet stored.
func (m *merger) missing() int {
	n := 0
	for _, it := range m.items {
		if !m.isDone(it) {
			n++
		}
	}
	return n
}

// takeAll merges a batch of result messages and says how many it held.
func (m *merger) takeAll(ctx context.Context, batch jetstream.MessageBatch) (int, error) {
	n := 0
	for msg := range batch.Messages() {
		n++
		if err := m.take(ctx, msg); err != nil {
			return n, err
		}
	}
	if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) && !errors.Is(err, context.DeadlineExceeded) {
		return n, err
	}
	return n, nil
}

// take stores a result's new outputs, then acknowledges it.
func (m *merger) take(ctx context.Context, msg jetstream.Msg) error {
	var r Result
	if err := decode(msg.Data(), &r); err != nil {
		fmt.Fprintf(m.log, "actor: warning: dropped an unreadable result: %v\n", err)
		return msg.Term()
	}
	if r.Refused != "" {
		if err := m.refuse(ctx, &r); err != nil {
			return err
		}
		return msg.DoubleAck(ctx)
	}
	for _, o := range r.Outputs {
		k := o.Prediction.Key()
		if m.done[k] {
			continue
		}
		if err := m.store(o); err != nil {
			return err
		}
		m.done[k] = true
	}
	return msg.DoubleAck(ctx)
}

// refuse logs a refusal and puts the item back for another worker.
func (m *merger) refuse(ctx context.Context, r *Result) error {
	fmt.Fprintf(m.log, "actor: worker %s refused item %s: %s\n", r.Worker, r.Item, r.Refused)
	it := m.items[r.Item]
	if it == nil || m.isDone(it) {
		return nil
	}
	m.refused[r.Item]++
	if m.refused[r.Item] >= maxRefusals {
		return fmt.Errorf("queue: item %s refused %d times, last by worker %s: %s", r.Item, maxRefusals, r.Worker, r.Refused)
	}
	return m.q.put(ctx, it)
}
