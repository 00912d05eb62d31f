package models_test

import (
	"testing"

	"actor/internal/testsupport"
	"actor/models"
)

// TestPulledModelsVerify checks every model found in the real cache
// ($ACTOR_HOME/models) against the registry: sizes, SHA-256 and GGUF
// metadata. Models not pulled are skipped, except that the models make test
// pulls are required under its ACTOR_REQUIRE_* variables
// (testsupport.Model).
func TestPulledModelsVerify(t *testing.T) {
	dir, err := models.Dir()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range models.All() {
		t.Run(m.Name, func(t *testing.T) {
			ok, err := m.Present(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				testsupport.Model(t, m.Name) // skips, or fails when CI requires the model
				t.Fatalf("%s: Resolve finds it, Present does not", m.Name)
			}
			if err := m.Verify(dir); err != nil {
				t.Fatal(err)
			}
		})
	}
}
