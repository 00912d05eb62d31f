package models

import (
	"os"
	"testing"
)

// TestPulledModelsVerify checks every model found in the real cache
// ($ACTOR_HOME/models) against the registry: sizes, SHA-256 and GGUF
// metadata. Models not pulled are skipped, unless ACTOR_REQUIRE_MODELS=1
// (CI after `actor models pull`) turns a missing model into a failure.
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
				if os.Getenv("ACTOR_REQUIRE_MODELS") == "1" {
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
