package serve

import (
	"encoding/json"
	"net/http"
	"strings"
)

// health answers llama.cpp's GET /health: {"status":"ok"} once the model
// is loaded (the server answers nothing before), 503 while shutting down.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	if s.closing.Load() {
		writeError(w, errShuttingDown)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// props answers llama.cpp's GET /props: the context size and defaults
// clients read (llama.vscode reads n_ctx), one slot.
func (s *Server) props(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"default_generation_settings": map[string]any{"n_ctx": s.capacity,
			"params": map[string]any{"n_predict": defaultPredict, "temperature": 0.8, "top_k": 40, "top_p": 0.95}},
		"total_slots": 1, "model_path": s.p.ModelName, "chat_template": "", "modalities": map[string]bool{"vision": false},
		"build_info": "actor"})
}

// selectFields is llama.cpp's response_fields: only the named fields of
// v's JSON, a path "a/b" reaching into objects, each under its path as
// written; missing ones are left out. No fields: all of v.
func selectFields(v any, fields []string) any {
	if len(fields) == 0 {
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var all map[string]any
	if json.Unmarshal(b, &all) != nil {
		return v
	}
	out := map[string]any{}
	for _, f := range fields {
		var cur any = all
		found := true
		for _, k := range strings.Split(f, "/") {
			m, ok := cur.(map[string]any)
			if !ok {
				found = false
				break
			}
			if cur, found = m[k]; !found {
				break
			}
		}
		if found {
			out[f] = cur
		}
	}
	return out
}
