package engine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// greedyFixture is engine/testdata/smollm2_greedy.json, recorded with
// llama-cpp-python by scripts/fixtures/record_llamacpp_greedy.py.
type greedyFixture struct {
	ModelSHA256 string `json:"model_sha256"`
	NGenerated  int    `json:"n_generated"`
	Cases       []struct {
		Prompt       string    `json:"prompt"`
		PromptIDs    []int32   `json:"prompt_ids"`
		GeneratedIDs []int32   `json:"generated_ids"`
		Margins      []float64 `json:"margins"`
	} `json:"cases"`
}

func loadGreedyFixture(t *testing.T) *greedyFixture {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "smollm2_greedy.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f greedyFixture
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) == 0 {
		t.Fatal("fixture has no cases")
	}
	return &f
}

// TestSmolLM2GreedyMatchesLlamaCpp decodes the fixture's prompts greedily
// with the default options (llama.cpp's defaults: float16 KV cache, no
// flash attention) and requires llama.cpp's first 64 tokens exactly.
func TestSmolLM2GreedyMatchesLlamaCpp(t *testing.T) {
	path := smolPath(t)
	fx := loadGreedyFixture(t)
	m, err := Load(path, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for ci, c := range fx.Cases {
		s := newSession(t, m)
		p, err := s.Prefill(c.PromptIDs)
		if err != nil {
			t.Fatal(err)
		}
		var got []int32
		for range fx.NGenerated {
			got = append(got, p.Top1)
			if p, err = s.Step(p.Top1); err != nil {
				t.Fatal(err)
			}
		}
		for i := range got {
			if got[i] != c.GeneratedIDs[i] {
				t.Errorf("case %d: token %d is %d, llama.cpp %d (its margin %.4f)\ngot  %v\nwant %v",
					ci, i, got[i], c.GeneratedIDs[i], c.Margins[i], got, c.GeneratedIDs)
				break
			}
		}
	}
}
