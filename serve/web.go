package serve

import (
	"embed"
	"io/fs"
	"net/http"
)

// webFiles is the page: plain HTML, CSS and JavaScript, no build step.
//
//go:embed web
var webFiles embed.FS

// webHandler serves the page, its scripts only from this origin.
func webHandler() http.Handler {
	sub, err := fs.Sub(webFiles, "web")
	if err != nil {
		panic(err) // the embedded folder exists: a build error otherwise
	}
	files := http.FileServerFS(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeError(w, &apiError{http.StatusMethodNotAllowed, "invalid_request_error", "the page is read with GET"})
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; img-src 'self' data:")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		files.ServeHTTP(w, r)
	})
}
