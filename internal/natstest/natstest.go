// Package natstest starts a real NATS server with JetStream inside a test,
// for the tests of the benchmark queue. It is apart from testsupport so
// that only those tests link the server.
package natstest

import (
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// JetStream starts a NATS server with JetStream on a free loopback port,
// storing its streams in a temporary folder, and returns its URL; the
// server stops when the test ends.
func JetStream(t testing.TB) string {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(),
		NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("natstest: the NATS server did not start")
	}
	t.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	return s.ClientURL()
}
