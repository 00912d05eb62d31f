package engine

import (
	"testing"

	"actor/internal/testsupport"
)

// TestGreedyMatchesLlamaCpp decodes the prompts of each real model's
// greedy fixture (SmolLM2-135M, Qwen2.5-Coder-0.5B; recorded with
// llama-cpp-python by scripts/fixtures/record_llamacpp_greedy.py) greedily
// with the default options (llama.cpp's defaults: float16 KV cache, no
// flash attention) and requires llama.cpp's prompt length and generated
// ids exactly.
func TestGreedyMatchesLlamaCpp(t *testing.T) {
	for _, name := range testsupport.GreedyModels {
		t.Run(name, func(t *testing.T) {
			fx := testsupport.LoadGreedy(t, name)
			m, err := Load(testsupport.Model(t, name), Options{Threads: 1})
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
		})
	}
}
