// Package queue runs a benchmark across machines on NATS JetStream: a
// coordinator (actor run --queue) puts a run's work items on a work-queue
// stream and merges the results workers (actor worker) publish on a
// results stream. JetStream keeps both on disk and redelivers an item whose
// worker died before acknowledging it; the coordinator stores each
// prediction key once, so a result that arrives twice (its item was
// delivered again, or the coordinator restarted before acknowledging it)
// is stored once.
package queue

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Stream names and subject prefixes. Items of run R go to
// actor.items.R, its results to actor.results.R.
const (
	ItemStream   = "ACTOR_ITEMS"
	ResultStream = "ACTOR_RESULTS"
	itemPrefix   = "actor.items."
	resultPrefix = "actor.results."
	workerGroup  = "actor-workers"
	resultMaxAge = 30 * 24 * time.Hour
)

// Queue is a connection to a JetStream server with the two streams.
type Queue struct {
	nc *nats.Conn
	js jetstream.JetStream
}

// Connect connects to the server at url (nats://HOST:4222) and creates
// the streams if they are missing.
func Connect(ctx context.Context, url, name string) (*Queue, error) {
	nc, err := nats.Connect(url, nats.Name(name), nats.MaxReconnects(-1))
	if err != nil {
		return nil, fmt.Errorf("queue %s: %w", url, err)
	}
	q := &Queue{nc: nc}
	if q.js, err = jetstream.New(nc); err != nil {
		nc.Close()
		return nil, err
	}
	for _, cfg := range []jetstream.StreamConfig{
		{Name: ItemStream, Subjects: []string{itemPrefix + ">"}, Retention: jetstream.WorkQueuePolicy},
		{Name: ResultStream, Subjects: []string{resultPrefix + ">"}, MaxAge: resultMaxAge},
	} {
		if _, err := q.js.CreateOrUpdateStream(ctx, cfg); err != nil {
			nc.Close()
			return nil, fmt.Errorf("queue %s: stream %s: %w (is JetStream on? start nats-server with -js)", url, cfg.Name, err)
		}
	}
	return q, nil
}

// Close closes the connection.
func (q *Queue) Close() { q.nc.Close() }

// encode and decode are the messages' format: gzipped JSON (traces
// compress well and a server's default payload limit is 1 MB).
func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	if err := json.NewEncoder(z).Encode(v); err != nil {
		return nil, err
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func decode(data []byte, v any) error {
	z, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return err
	}
	b, err := io.ReadAll(z)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
