package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// sse writes server-sent events: one JSON object a "data:" line, ended by
// "data: [DONE]", as OpenAI streams.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

// startSSE sends the stream's headers.
func startSSE(w http.ResponseWriter) *sse {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	s := &sse{w, f}
	s.flush()
	return s
}

// send writes one event.
func (s *sse) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", b); err != nil {
		return err
	}
	s.flush()
	return nil
}

// fail sends an error that came after the stream started, then ends it.
func (s *sse) fail(err error) {
	e, ok := err.(*apiError)
	if !ok {
		e = &apiError{http.StatusInternalServerError, "server_error", err.Error()}
	}
	s.send(e.body())
	s.done()
}

// done ends the stream.
func (s *sse) done() {
	fmt.Fprint(s.w, "data: [DONE]\n\n")
	s.flush()
}

func (s *sse) flush() {
	if s.f != nil {
		s.f.Flush()
	}
}
