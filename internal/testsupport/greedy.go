package testsupport

import (
	"encoding/json"
	"os"
	"testing"

	"actor/models"
)

// Greedy is llama.cpp's greedy continuation of a few prompts on a real
// model, engine/testdata/<model>_greedy.json, recorded by
// scripts/fixtures/record_llamacpp_greedy.py (format:
// engine/testdata/README.md).
type Greedy struct {
	// Model is the registry name of the model the fixture was recorded on.
	Model string `json:"-"`
	// ModelSHA256 identifies the GGUF file llama.cpp ran.
	ModelSHA256 string `json:"model_sha256"`
	// NGenerated is the number of greedy ids of every case (64).
	NGenerated int `json:"n_generated"`
	// EOS is the model's end-of-sequence id (the recording does not stop
	// at it).
	EOS int32 `json:"eos_id"`
	// Cases are the prompts and llama.cpp's ids.
	Cases []GreedyCase `json:"cases"`
}

// GreedyCase is one prompt of a Greedy fixture.
type GreedyCase struct {
	// Prompt is the prompt text; PromptIDs is llama.cpp's tokenisation
	// of it (what the model was fed).
	Prompt    string  `json:"prompt"`
	PromptIDs []int32 `json:"prompt_ids"`
	// GeneratedIDs are llama.cpp's greedy ids after the prompt.
	GeneratedIDs []int32 `json:"generated_ids"`
	// Margins are llama.cpp's top-1 minus top-2 logit per generated id.
	Margins []float64 `json:"margins"`
}

// GreedyModels are the models with a Greedy fixture.
var GreedyModels = []string{"smollm2-135m", "qwen2.5-coder-0.5b"}

// greedyFiles maps a model to its fixture.
var greedyFiles = map[string]string{
	"smollm2-135m":       "engine/testdata/smollm2_greedy.json",
	"qwen2.5-coder-0.5b": "engine/testdata/qwen2.5-coder-0.5b_greedy.json",
}

// LoadGreedy reads the Greedy fixture of model and checks that it was
// recorded on the file the registry pulls.
func LoadGreedy(t testing.TB, model string) *Greedy {
	t.Helper()
	rel, ok := greedyFiles[model]
	if !ok {
		t.Fatalf("testsupport: no greedy fixture for %q", model)
	}
	data, err := os.ReadFile(Fixture(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	g := &Greedy{Model: model}
	if err := json.Unmarshal(data, g); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	if len(g.Cases) == 0 || g.NGenerated <= 0 {
		t.Fatalf("%s: no cases", rel)
	}
	for i, c := range g.Cases {
		if len(c.GeneratedIDs) != g.NGenerated || len(c.Margins) != g.NGenerated {
			t.Fatalf("%s: case %d has %d ids and %d margins, want %d", rel, i, len(c.GeneratedIDs), len(c.Margins), g.NGenerated)
		}
	}
	if m := models.Lookup(model); len(m.Files) != 1 || m.Files[0].SHA256 != g.ModelSHA256 {
		t.Fatalf("%s was recorded on a file with sha256 %s, not the registry's %s", rel, g.ModelSHA256, model)
	}
	return g
}
