package gguf_test

import (
	"os"
	"testing"

	"actor/gguf"
	"actor/models"
)

// TestRealModel reads the header of the default real model (or the file
// ACTOR_GGUF names) and checks that the tensor directory ends where the file
// ends. It skips when no model is pulled, unless ACTOR_REQUIRE_MODELS=1.
func TestRealModel(t *testing.T) {
	p := os.Getenv("ACTOR_GGUF")
	if p == "" {
		var err error
		if p, err = models.Resolve(models.DefaultModel); err != nil {
			if os.Getenv("ACTOR_REQUIRE_MODELS") == "1" {
				t.Fatal(err)
			}
			t.Skip(err)
		}
	}
	f, err := gguf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if f.Architecture() == "" || len(f.Tensors) == 0 {
		t.Fatalf("arch %q, %d tensors", f.Architecture(), len(f.Tensors))
	}
	last := f.Tensors[0]
	for _, x := range f.Tensors {
		if x.Offset > last.Offset {
			last = x
		}
	}
	if end := f.DataOffset + int64(last.Offset+last.Bytes); end > f.Size || f.Size-end > int64(f.Alignment) {
		t.Fatalf("last tensor ends at %d, file size %d", end, f.Size)
	}
}
