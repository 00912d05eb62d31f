package gguf

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestWriteThenRead(t *testing.T) {
	kvs := []KV{
		{"general.architecture", "bert"},
		{"bert.block_count", uint32(6)},
		{"bert.attention.layer_norm_epsilon", float32(1e-12)},
		{"general.alignment", uint32(64)},
		{"x.i64", int64(-5)},
		{"x.f64", 2.5},
		{"x.flag", true},
		{"tokenizer.ggml.tokens", []string{"[PAD]", "a", "##b"}},
		{"tokenizer.ggml.token_type", []int32{3, 1, 1}},
		{"x.u32s", []uint32{7, 8}},
		{"x.f32s", []float32{0.5}},
		{"x.i64s", []int64{1, -1}},
		{"x.bools", []bool{true, false}},
	}
	tensors := []TensorData{
		{"a", []uint64{3}, TypeF32, make([]byte, 12)},
		{"b", []uint64{32, 2}, TypeQ8_0, bytes.Repeat([]byte{7}, 68)},
	}
	var buf bytes.Buffer
	if err := Write(&buf, kvs, tensors, 64); err != nil {
		t.Fatal(err)
	}
	f, err := Read("w.gguf", bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range kvs {
		if !reflect.DeepEqual(f.Metadata[kv.Key], kv.Value) {
			t.Errorf("%s: read %#v, wrote %#v", kv.Key, f.Metadata[kv.Key], kv.Value)
		}
	}
	if f.Alignment != 64 || f.DataOffset%64 != 0 {
		t.Fatalf("alignment %d offset %d", f.Alignment, f.DataOffset)
	}
	b, _ := f.Tensor("b")
	got := buf.Bytes()[f.DataOffset+int64(b.Offset):][:b.Bytes]
	if !bytes.Equal(got, tensors[1].Data) {
		t.Fatal("tensor b data differs after the round trip")
	}
}

func TestWriteRejectsWrongSize(t *testing.T) {
	err := Write(&bytes.Buffer{}, nil, []TensorData{{"w", []uint64{4, 2}, TypeF32, make([]byte, 12)}}, 0)
	if err == nil || !strings.Contains(err.Error(), "needs 32") {
		t.Fatalf("got %v", err)
	}
	err = Write(&bytes.Buffer{}, []KV{{"k", struct{}{}}}, nil, 0)
	if err == nil || !strings.Contains(err.Error(), `metadata "k"`) {
		t.Fatalf("got %v", err)
	}
}

func TestWriteFileLeavesNothingOnError(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.gguf")
	if err := WriteFile(p, []KV{{"k", struct{}{}}}, nil, 0); err == nil {
		t.Fatal("bad metadata accepted")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("left %d files behind", len(ents))
	}
	if err := WriteFile(p, []KV{{"general.architecture", "llama"}}, nil, 0); err != nil {
		t.Fatal(err)
	}
	if f, err := Open(p); err != nil || f.Architecture() != "llama" {
		t.Fatalf("%v %v", f, err)
	}
}
