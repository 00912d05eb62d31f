package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// apiError is an error answered as JSON with its HTTP status, in
// OpenAI's shape: {"error": {"message": ..., "type": ...}}.
type apiError struct {
	Status  int
	Type    string
	Message string
}

// Error is the message the client reads.
func (e *apiError) Error() string { return e.Message }

// badRequest is a 400 naming what is wrong with the request.
func badRequest(format string, args ...any) *apiError {
	return &apiError{http.StatusBadRequest, "invalid_request_error", fmt.Sprintf(format, args...)}
}

// errorBody is the JSON of an error.
type errorBody struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	} `json:"error"`
}

func (e *apiError) body() errorBody {
	var b errorBody
	b.Error.Message, b.Error.Type = e.Message, e.Type
	return b
}

// writeError answers err: an apiError as it says, anything else as a 500.
func writeError(w http.ResponseWriter, err error) {
	var e *apiError
	if !errors.As(err, &e) {
		e = &apiError{http.StatusInternalServerError, "server_error", err.Error()}
	}
	writeJSON(w, e.Status, e.body())
}

// writeJSON answers v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// decode reads the request's JSON body into v, within the size limit;
// strict refuses fields v does not have (OpenAI's endpoints are lenient:
// clients send fields this server ignores).
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any, strict bool) *apiError {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &apiError{http.StatusRequestEntityTooLarge, "invalid_request_error", fmt.Sprintf("request body over %d bytes", tooBig.Limit)}
		}
		return badRequest("request body: invalid JSON: %v", err)
	}
	if dec.More() {
		return badRequest("request body: one JSON object expected, more follows")
	}
	return nil
}
