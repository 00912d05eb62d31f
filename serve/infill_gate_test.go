package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestInfillGate: with --cursor-gate, a completion is drafted with
// llama.cpp's prompt; under the threshold the draft is the answer (the
// same as a request without context, streamed or not), at or over it the
// repository's context writes the answer, and the account names the
// draft's entropy and content either way.
func TestInfillGate(t *testing.T) {
	var req map[string]any
	json.Unmarshal([]byte(editorRequest(t, "llama-vim-fim")), &req)
	req["response_fields"], req["n_predict"], req["temperature"], req["samplers"] = nil, 8, 0, []string{"temperature"}
	ask := func(url string, change map[string]any) map[string]any {
		t.Helper()
		r := map[string]any{}
		for k, v := range req {
			r[k] = v
		}
		for k, v := range change {
			r[k] = v
		}
		body, _ := json.Marshal(r)
		code, b := call(t, "POST", url+"/infill", string(body))
		if code != 200 {
			t.Fatalf("%d %s", code, b)
		}
		return decodeObject(t, b)
	}
	_, plain := qwenServer(t, Config{})
	none := ask(plain.URL, map[string]any{"context": false})
	if none["context_gate"] != nil {
		t.Errorf("a server without the gate reports one: %v", none["context_gate"])
	}

	_, shut := qwenServer(t, Config{Gate: 1e9})
	draft := ask(shut.URL, nil)
	g, _ := draft["context_gate"].(map[string]any)
	entropy, _ := g["entropy"].(float64)
	if draft["content"] != none["content"] || draft["prompt"] != none["prompt"] || g["context"] != false || entropy <= 0 || g["draft"] != nil {
		t.Errorf("gate shut: content %q prompt %.80q gate %v; want llama.cpp's prompt's %q and a positive entropy",
			draft["content"], draft["prompt"], g, none["content"])
	}
	req["stream"] = true
	resp, err := http.Post(shut.URL+"/infill", "application/json", strings.NewReader(mustJSON(t, req)))
	req["stream"] = false
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	evs, _ := events(t, resp.Body)
	var text strings.Builder
	for _, ev := range evs[:len(evs)-1] {
		text.WriteString(ev["content"].(string))
	}
	if last := evs[len(evs)-1]; text.String() != draft["content"] || last["stop"] != true || last["context_gate"] == nil {
		t.Errorf("gate shut, streamed: %q then %v; want %q then the final result with the gate's account", text.String(), last, draft["content"])
	}

	_, open := qwenServer(t, Config{Gate: entropy})
	ctx := ask(open.URL, nil)
	g, _ = ctx["context_gate"].(map[string]any)
	if p, _ := ctx["prompt"].(string); !strings.HasPrefix(p, "<|repo_name|>inventory\n") || g["context"] != true || g["entropy"] != entropy || g["draft"] != draft["content"] {
		t.Errorf("gate open at the draft's own entropy: prompt %.80q gate %v; want the repository's context and the draft %q", p, g, draft["content"])
	}
}

// mustJSON marshals v.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
