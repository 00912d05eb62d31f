package gguf_test

import (
	"testing"

	"actor/gguf"
	"actor/internal/testsupport"
	"actor/models"
)

// TestRealModel reads the header of the default real model and checks that
// the tensor directory ends where the file ends. It skips when the model is
// not pulled, unless ACTOR_REQUIRE_MODELS=1.
func TestRealModel(t *testing.T) {
	f, err := gguf.Open(testsupport.Model(t, models.DefaultModel))
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
