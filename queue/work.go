package queue

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Handler generates an item's samples. An error refuses the item: the
// worker reports it to the coordinator and stops, since a worker that
// cannot serve one item (other files, a missing repository) would refuse
// the next ones too.
type Handler func(ctx context.Context, it *Item) ([]Output, error)

// Work takes items from the queue one at a time and serves them with h
// until ctx ends (then it returns nil, within 10 s) or an item is refused. A result is
// published, and stored by the server, before its item is acknowledged;
// while h runs, the item's ack deadline (ackWait) is pushed back, so only
// a dead worker's item is delivered again.
func (q *Queue) Work(ctx context.Context, worker string, ackWait time.Duration, h Handler, log io.Writer) error {
	cons, err := q.js.CreateOrUpdateConsumer(ctx, ItemStream, jetstream.ConsumerConfig{Durable: workerGroup,
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait, MaxDeliver: -1})
	if err != nil {
		return fmt.Errorf("queue: work queue: %w", err)
	}
	for ctx.Err() == nil {
		// One item at a time, so that none waits in a busy worker's buffer.
		batch, err := cons.Fetch(1, jetstream.FetchMaxWait(10*time.Second))
		if err != nil {
			return err
		}
		for msg := range batch.Messages() {
			if err := q.serve(ctx, worker, msg, ackWait, h, log); err != nil {
				return err
			}
		}
	}
	return nil
}

// serve generates one item and publishes its result.
func (q *Queue) serve(ctx context.Context, worker string, msg jetstream.Msg, ackWait time.Duration, h Handler, log io.Writer) error {
	var it Item
	if err := decode(msg.Data(), &it); err != nil {
		fmt.Fprintf(log, "actor: warning: dropped an unreadable item: %v\n", err)
		return msg.TermWithReason("unreadable item")
	}
	fmt.Fprintf(log, "item %s: generating %d samples\n", it.ID(), len(it.Samples))
	stop := keepAlive(msg, ackWait/3)
	outs, err := h(ctx, &it)
	stop()
	if err != nil && ctx.Err() != nil {
		// Stopped mid-item: let another worker have it now.
		return errors.Join(msg.Nak(), ctx.Err())
	}
	r := Result{Item: it.ID(), Worker: worker, Outputs: outs}
	if err != nil {
		r.Outputs, r.Refused = nil, err.Error()
	}
	data, perr := encode(r)
	if perr == nil {
		_, perr = q.js.Publish(ctx, resultPrefix+it.Run, data)
	}
	if perr != nil {
		return errors.Join(fmt.Errorf("queue: result of item %s: %w", it.ID(), perr), msg.Nak())
	}
	if err != nil {
		msg.TermWithReason(err.Error())
		return fmt.Errorf("refused item %s: %w", it.ID(), err)
	}
	if err := msg.DoubleAck(ctx); err != nil {
		return err
	}
	fmt.Fprintf(log, "item %s: %d samples published\n", it.ID(), len(outs))
	return nil
}

// keepAlive tells the server every period that msg is still being worked
// on, until the returned function is called.
func keepAlive(msg jetstream.Msg, period time.Duration) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				msg.InProgress()
			}
		}
	}()
	return func() { close(done) }
}
