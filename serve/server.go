// Package serve is ACToR over HTTP: a loaded pipeline.Pipeline answers
// OpenAI-compatible completions (for editor clients), repository-aware
// generation whose server-sent events carry every token, critical token,
// p(critical) per probe member and context change, and the embedded web
// page that shows them. The model decodes one request at a time; requests
// wait in a bounded queue (429 when it is full, 503 while shutting down),
// each under a time limit, and a client that goes away cancels its
// generation. Only the configured repositories are readable.
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"actor/engine"
	"actor/infill"
	"actor/pipeline"
)

// Config says what a server offers and its limits.
type Config struct {
	// Repos are the repository folders it generates in, named by their
	// base names.
	Repos []string
	// Runs is a folder of benchmark run folders (actor run's OUT) the page
	// may browse ("": none).
	Runs string
	// Token, when set, is required as "Authorization: Bearer TOKEN" on
	// every API request (CheckAddr requires one off loopback).
	Token string
	// Queue is the most requests admitted at once, the running one
	// included (0: DefaultQueue); more are answered 429.
	Queue int
	// Timeout limits a request, its wait in the queue included (0:
	// DefaultTimeout).
	Timeout time.Duration
	// MaxBody limits a request body in bytes (0: DefaultMaxBody).
	MaxBody int64
	// Watch, when above 0, is how often the repositories' source files
	// are checked for changes; a changed repository is read again in the
	// model's turn (a full queue puts it off to the next check).
	Watch time.Duration
	// CacheReuse, when above 0, is the shortest run of tokens a
	// completion at the cursor takes from the previous request's cache at
	// a new position, as llama.cpp's --cache-reuse: text that moved toward
	// the start because text before it was removed (a line deleted, the
	// editor's window moved down; engine.Session.PrefillReusing), and in
	// the repository layout a chunk (the cursor's file too) moved by
	// chunks added before it: faster, and approximate, the moved keys and
	// values having seen the old text; typed text stops the reuse. 0
	// reuses only the common prefix, exactly.
	CacheReuse int
	// CursorLineLast lays the cursor line's text out after the middle
	// token in completions at the cursor (infill.Input.LineLast): typing
	// on a line then only extends the cached prompt.
	CursorLineLast bool
	// CursorAlways answers every completion at the cursor whose prompt
	// shows the repository's context with it; by default each is written
	// with and without it and the one the model is surer of answered
	// (Server.chooseInfill).
	CursorAlways bool
	// Slots is how many completions' caches (sessions) are kept for
	// completions at a cursor (0: DefaultSlots).
	Slots int
	// Context bounds the repository's context of a completion at the
	// cursor (zero: infill.DefaultContextBudget).
	Context infill.ContextBudget
	// Log receives one line per request and the indexing warnings.
	Log io.Writer
}

// Defaults of Config.
const (
	DefaultQueue   = 8
	DefaultTimeout = 5 * time.Minute
	DefaultMaxBody = 1 << 20
)

// Server answers the API and the page over one pipeline.
type Server struct {
	p     *pipeline.Pipeline
	cfg   Config
	repos *repos
	mux   *http.ServeMux

	slots chan struct{} // admitted requests
	model chan struct{} // the model's one decoding turn
	// capacity is the model's context in tokens (a session's KV cache).
	capacity int
	// caches keep the caches of recent completions (at a cursor, or of
	// /v1/completions).
	caches *slots

	closing   atomic.Bool
	done      chan struct{} // closed when shutdown starts
	closeOnce sync.Once
	base      context.Context // cancelled when in-flight work must stop
	cancel    context.CancelFunc
}

// New indexes the repositories (incrementally, see pipeline.Corpus) and
// returns the server. The caller closes the pipeline after the server.
func New(ctx context.Context, p *pipeline.Pipeline, cfg Config) (*Server, error) {
	if cfg.Queue <= 0 {
		cfg.Queue = DefaultQueue
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.Slots <= 0 {
		cfg.Slots = DefaultSlots
	}
	if cfg.Context == (infill.ContextBudget{}) {
		cfg.Context = infill.DefaultContextBudget
	}
	rs, err := openRepos(ctx, p, cfg.Repos)
	if err != nil {
		return nil, err
	}
	probe, err := p.Model.NewSession()
	if err != nil {
		return nil, err
	}
	capacity := probe.Capacity()
	probe.Close()
	// --cache-reuse as llama.cpp's, and where the model has the
	// repository layout, chunks moved by chunks added before them too
	fim := p.Tok.FIM()
	reuse := engine.ReusePolicy{MinRun: cfg.CacheReuse, Chunked: fim.Repository(), Boundary: fim.Sep}
	s := &Server{p: p, cfg: cfg, repos: rs, slots: make(chan struct{}, cfg.Queue), model: make(chan struct{}, 1),
		capacity: capacity, caches: &slots{m: p.Model, max: cfg.Slots, reuse: reuse}, done: make(chan struct{})}
	if room, want := s.infillBudget().Context, cfg.Context.Symbols+cfg.Context.Blocks; room < want {
		fmt.Fprintf(cfg.Log, "serve: note: a context of %d tokens leaves %d for the chunks of a completion at the cursor (the repository's context asks up to %d): give --ctx %d or more\n",
			capacity, room, want, capacity+want-room)
	}
	s.base, s.cancel = context.WithCancel(context.Background())
	s.routes()
	if cfg.Watch > 0 {
		go s.watch(cfg.Watch)
	}
	return s, nil
}

// watch re-reads the repositories whose files changed, every interval,
// until the server stops.
func (s *Server) watch(interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-s.base.Done():
			return
		case <-s.done:
			return
		case <-tick.C:
		}
		for _, name := range s.repos.names {
			r, _ := s.repos.get(name)
			if !s.repos.changed(r) {
				continue
			}
			release, e := s.acquire(s.base)
			if e != nil {
				continue
			}
			err := s.repos.load(s.base, r)
			release()
			if err != nil {
				fmt.Fprintf(s.cfg.Log, "serve: re-reading %s after a change: %v\n", name, err)
				continue
			}
			fmt.Fprintf(s.cfg.Log, "serve: re-read %s after a change\n", name)
		}
	}
}

// Close frees the server's sessions; call it after the last request.
func (s *Server) Close() {
	s.cancel()
	s.caches.close()
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// ListenAndServe serves on the listener until ctx is done, then shuts
// down: requests still waiting are answered 503, running ones get grace
// to finish and are then cancelled.
func (s *Server) ListenAndServe(ctx context.Context, l net.Listener, grace time.Duration) error {
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.beginShutdown()
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := hs.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		s.cancel() // generations end at their next token
		fctx, fcancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer fcancel()
		err = hs.Shutdown(fctx)
	}
	return err
}

// beginShutdown refuses new requests and releases the waiting ones.
func (s *Server) beginShutdown() {
	s.closing.Store(true)
	s.closeOnce.Do(func() { close(s.done) })
}

// acquire admits a request to the queue and waits for the model's turn;
// release gives both back.
func (s *Server) acquire(ctx context.Context) (release func(), err *apiError) {
	if s.closing.Load() {
		return nil, errShuttingDown
	}
	select {
	case s.slots <- struct{}{}:
	default:
		return nil, &apiError{http.StatusTooManyRequests, "rate_limit_error", fmt.Sprintf("the queue is full (%d requests): retry later", s.cfg.Queue)}
	}
	select {
	case s.model <- struct{}{}:
		return func() { <-s.model; <-s.slots }, nil
	case <-s.done:
		<-s.slots
		return nil, errShuttingDown
	case <-ctx.Done():
		<-s.slots
		return nil, &apiError{http.StatusServiceUnavailable, "timeout_error", "timed out waiting in the queue: " + ctx.Err().Error()}
	}
}

// turn gives a request the model's turn under its time limit: its context
// and done, which releases the turn and the context; or it writes the
// refusal (429 queue full, 503 shutting down or timed out waiting) and
// reports false.
func (s *Server) turn(w http.ResponseWriter, r *http.Request) (ctx context.Context, done func(), ok bool) {
	ctx, cancel := s.requestContext(r)
	release, e := s.acquire(ctx)
	if e != nil {
		cancel()
		writeError(w, e)
		return nil, nil, false
	}
	return ctx, func() { release(); cancel() }, true
}

// admit decodes a request body into req, checks it and waits for the
// model's turn: the checked request, the turn's context and done. On any
// refusal it has written the error and reports false.
func admit[Req, Checked any](s *Server, w http.ResponseWriter, r *http.Request, req *Req, strict bool,
	check func(*Req) (Checked, *apiError)) (c Checked, ctx context.Context, done func(), ok bool) {
	if e := s.decode(w, r, req, strict); e != nil {
		writeError(w, e)
		return c, nil, nil, false
	}
	c, e := check(req)
	if e != nil {
		writeError(w, e)
		return c, nil, nil, false
	}
	ctx, done, ok = s.turn(w, r)
	return c, ctx, done, ok
}

var errShuttingDown = &apiError{http.StatusServiceUnavailable, "unavailable_error", "the server is shutting down"}

// requestContext is the request's context under the time limit, also
// cancelled when the server stops in-flight work.
func (s *Server) requestContext(r *http.Request) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.Timeout)
	stop := context.AfterFunc(s.base, cancel)
	return ctx, func() { stop(); cancel() }
}

// CheckAddr refuses to listen off loopback without a token: a host that is
// not a loopback address or "localhost" (an empty host listens on every
// interface) needs one.
func CheckAddr(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: %w", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	if token == "" {
		return fmt.Errorf("--addr %s is not loopback: give --token (clients then send Authorization: Bearer TOKEN)", addr)
	}
	return nil
}
