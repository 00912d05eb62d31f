package serve

import (
	"crypto/subtle"
	"fmt"
	"net/http"
	"time"

	"actor/generate"
)

// routes registers the API (behind the token when one is set) and the
// page.
func (s *Server) routes() {
	m := http.NewServeMux()
	api := func(pattern string, h http.HandlerFunc) { m.Handle(pattern, s.auth(h)) }
	api("GET /v1/models", s.models)
	api("POST /v1/completions", s.completions)
	api("POST /v1/actor/generate", s.generate)
	api("GET /v1/actor/info", s.info)
	api("GET /v1/repos", s.listRepos)
	api("GET /v1/repos/{name}/functions", s.functions)
	api("POST /v1/repos/{name}/reindex", s.reindex)
	api("GET /v1/runs", s.runs)
	// llama.cpp's endpoints, for the editors' plugins (llama.vim, llama.vscode)
	api("POST /infill", s.infillHandler)
	api("GET /props", s.props)
	m.Handle("GET /health", s.logged(http.HandlerFunc(s.health)))
	api("/v1/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &apiError{http.StatusNotFound, "not_found_error", fmt.Sprintf("no endpoint %s %s", r.Method, r.URL.Path)})
	})
	m.Handle("/", webHandler())
	s.mux = m
}

// auth requires the bearer token when the server has one.
func (s *Server) auth(h http.Handler) http.Handler {
	if s.cfg.Token == "" {
		return s.logged(h)
	}
	want := []byte("Bearer " + s.cfg.Token)
	return s.logged(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", "Bearer")
			writeError(w, &apiError{http.StatusUnauthorized, "authentication_error", "missing or wrong bearer token (Authorization: Bearer TOKEN)"})
			return
		}
		h.ServeHTTP(w, r)
	}))
}

// logged writes one line per API request to the log.
func (s *Server) logged(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		fmt.Fprintf(s.cfg.Log, "%s %s %s %d %.3fs\n", start.UTC().Format(time.RFC3339), r.Method, r.URL.Path, rec.status, time.Since(start).Seconds())
	})
}

// statusRecorder remembers the status of a response; it flushes for
// server-sent events.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

// WriteHeader records the status and writes it.
func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// Flush passes a flush to the wrapped writer (streamed answers).
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// info tells the page what the server has: the model, the methods it can
// run and its default, the repositories, and whether runs can be browsed.
func (s *Server) info(w http.ResponseWriter, r *http.Request) {
	var methods []string
	for _, m := range generate.Methods() {
		if m.Probed && s.p.Probe == nil && !s.p.Method.NoInference && s.p.Method.Entropy == 0 {
			continue
		}
		methods = append(methods, m.Name)
	}
	writeJSON(w, http.StatusOK, map[string]any{"model": s.modelName(), "method": s.p.Method.Method, "methods": methods,
		"probe": s.p.Probe != nil, "dense": s.p.Enc != nil, "repos": s.repos.names, "runs": s.cfg.Runs != ""})
}

// repoInfo describes a served repository.
type repoInfo struct {
	Name      string `json:"name"`
	Blocks    int    `json:"blocks"`
	Functions int    `json:"functions"`
}

func (s *Server) describe(r *repo) repoInfo {
	s.repos.mu.RLock()
	defer s.repos.mu.RUnlock()
	return repoInfo{r.Name, len(r.corpus.Blocks), len(r.functions)}
}

func (s *Server) listRepos(w http.ResponseWriter, r *http.Request) {
	var out []repoInfo
	for _, n := range s.repos.names {
		rp, _ := s.repos.get(n)
		out = append(out, s.describe(rp))
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

// functions lists a repository's functions, for choosing a target.
func (s *Server) functions(w http.ResponseWriter, r *http.Request) {
	rp, e := s.repos.get(r.PathValue("name"))
	if e != nil {
		writeError(w, e)
		return
	}
	s.repos.mu.RLock()
	fns := rp.functions
	s.repos.mu.RUnlock()
	writeJSON(w, http.StatusOK, map[string]any{"data": fns})
}

// reindex re-reads a repository (its index refreshed incrementally), in
// the model's turn: the encoder is the pipeline's.
func (s *Server) reindex(w http.ResponseWriter, r *http.Request) {
	rp, e := s.repos.get(r.PathValue("name"))
	if e != nil {
		writeError(w, e)
		return
	}
	ctx, done, ok := s.turn(w, r)
	if !ok {
		return
	}
	defer done()
	if err := s.repos.load(ctx, rp); err != nil {
		s.fail(w, nil, ctx, err)
		return
	}
	writeJSON(w, http.StatusOK, s.describe(rp))
}
