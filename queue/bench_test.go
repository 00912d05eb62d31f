package queue

import (
	"context"
	"io"
	"testing"
)

// BenchmarkItemOverhead is the queue's cost per item, without generation:
// the coordinator puts b.N one-sample items on an embedded server, one
// worker takes each, publishes a result (its publish acknowledged by the
// server), acknowledges the item, and the coordinator merges the result
// and acknowledges it.
func BenchmarkItemOverhead(b *testing.B) {
	q, items := fakeTasks(b, (b.N+1)/2)
	workers(b, q, 1, func(_ context.Context, it *Item) ([]Output, error) { return fakeOutputs(it), nil })
	var s stored
	b.ResetTimer()
	if err := q.Coordinate(context.Background(), "r1", items, map[string]bool{}, s.store, io.Discard); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if len(s.keys) != len(items) {
		b.Fatalf("%d of %d stored", len(s.keys), len(items))
	}
}
