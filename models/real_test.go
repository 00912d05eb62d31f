package models

import (
	"os"
	"testing"
)

// TestPulledModelsVerify checks every model found in the real cache
// ($ACTOR_HOME/models) against the registry: sizes, SHA-256 and GGUF
// metadata. Models not pulled are skipped, except that ACTOR_REQUIRE_MODELS=1
// (set by .ci/run after `actor models pull smollm2-135m`) makes a missing
// DefaultModel a failure.
func TestPulledModelsVerify(t *testing.T) {
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range All() {
		t.Run(m.Name, func(t *testing.T) {
			ok, err := m.Present(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				if m.Name == DefaultModel && os.Getenv("ACTOR_REQUIRE_MODELS") == "1" {
					t.Fatalf("%s is not pulled (ACTOR_REQUIRE_MODELS=1); run: actor models pull %s", m.Name, m.Name)
				}
				t.Skipf("%s is not pulled; run: actor models pull %s", m.Name, m.Name)
			}
			if err := m.Verify(dir); err != nil {
				t.Fatal(err)
			}
		})
	}
}
