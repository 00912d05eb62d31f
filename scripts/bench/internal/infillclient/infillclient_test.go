package infillclient

import (
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestEditSimilarity: hand-worked distances, over runes.
func TestEditSimilarity(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"", "", 1}, {"abc", "abc", 1}, {"abc", "", 0}, {"kitten", "sitting", 1 - 3.0/7}, {"é", "e", 0},
	} {
		if got := EditSimilarity(c.a, c.b); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("EditSimilarity(%q, %q) = %g, want %g", c.a, c.b, got, c.want)
		}
	}
}

// TestPostFIMAsText lays the prompt out as actor's /v1/completions does
// (llama.cpp's layout): the whole prompt, the text typed on the cursor's
// line included, before <|fim_suffix|>; no suffix field, greedy, no
// repeat penalty.
func TestPostFIMAsText(t *testing.T) {
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(&got)
		w.Write([]byte(`{"choices":[{"text":"x + 1"}],"usage":{"prompt_tokens":12}}`))
	}))
	defer srv.Close()
	c, err := PostFIM(srv.URL, FIM{Prefix: "def f(x):\n    return ", Suffix: "\n\nf(1)\n", MaxTokens: 8, AsText: true})
	if err != nil {
		t.Fatal(err)
	}
	want := "<|fim_prefix|>def f(x):\n    return <|fim_suffix|>\n\nf(1)\n<|fim_middle|>"
	if _, hasSuffix := got["suffix"]; got["prompt"] != want || hasSuffix || got["repeat_penalty"] != 1.0 || got["temperature"] != 0.0 {
		t.Errorf("request %v, want prompt %q and no suffix", got, want)
	}
	if c.Text != "x + 1" || c.PromptTokens != 12 {
		t.Errorf("answer %+v", c)
	}
}

// TestScoreLine scores the answer's first line only, white space around
// either side left out.
func TestScoreLine(t *testing.T) {
	if exact, sim := ScoreLine("  return x\n", "return x  \n    y = 1\n"); !exact || sim != 1 {
		t.Errorf("same line: %v %g", exact, sim)
	}
	if exact, sim := ScoreLine("abc", "abd\nabc"); exact || math.Abs(sim-2.0/3) > 1e-9 {
		t.Errorf("first line differs: %v %g", exact, sim)
	}
}
