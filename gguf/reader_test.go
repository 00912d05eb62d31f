package gguf

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func read(t *testing.T, data []byte) (*File, error) {
	t.Helper()
	return Read("test.gguf", bytes.NewReader(data), int64(len(data)))
}

func TestReadValidFile(t *testing.T) {
	f, err := read(t, sample().bytes())
	if err != nil {
		t.Fatal(err)
	}
	if f.Architecture() != "llama" || f.Version != 3 {
		t.Fatalf("arch %q version %d", f.Architecture(), f.Version)
	}
	if n, err := f.Uint("llama.block_count"); err != nil || n != 2 {
		t.Fatalf("block_count %d %v", n, err)
	}
	if x, err := f.Float("llama.rope.freq_base"); err != nil || x != 10000 {
		t.Fatalf("freq_base %v %v", x, err)
	}
	if toks, err := f.Strings("tokenizer.ggml.tokens"); err != nil || strings.Join(toks, ",") != "a,b,ab" {
		t.Fatalf("tokens %v %v", toks, err)
	}
	if ty, err := f.Int32s("tokenizer.ggml.token_type"); err != nil || ty[2] != 3 {
		t.Fatalf("types %v %v", ty, err)
	}
	if sc, err := f.Float32s("tokenizer.ggml.scores"); err != nil || sc[1] != -1 {
		t.Fatalf("scores %v %v", sc, err)
	}
	if ok, err := f.Bool("tokenizer.ggml.add_bos_token"); err != nil || !ok {
		t.Fatalf("add_bos %v %v", ok, err)
	}
	if ft, err := f.Uint("general.file_type"); err != nil || ft != 1 {
		t.Fatalf("file_type %v %v", ft, err)
	}
	if got := strings.Join(f.Keys, ","); !strings.HasPrefix(got, "general.architecture,llama.block_count") {
		t.Fatalf("key order %s", got)
	}
	q, ok := f.Tensor("blk.0.attn_q.weight")
	if !ok || q.Type != TypeQ8_0 || q.Bytes != 68 || q.Elements() != 64 || q.Offset%32 != 0 {
		t.Fatalf("tensor %+v", q)
	}
	if f.DataOffset%32 != 0 || len(f.Tensors) != 3 {
		t.Fatalf("data offset %d, %d tensors", f.DataOffset, len(f.Tensors))
	}
}

func TestAccessorErrorsNameKeyAndFile(t *testing.T) {
	f, err := read(t, sample().bytes())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.String("llama.block_count"); err == nil || !strings.Contains(err.Error(), `"llama.block_count" is uint32`) {
		t.Fatalf("wrong-type error: %v", err)
	}
	if _, err := f.Uint("llama.missing"); err == nil || !strings.Contains(err.Error(), "test.gguf") || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing-key error: %v", err)
	}
}

// TestEveryTruncationFails cuts a valid file at every byte: each prefix must
// give an error, never a panic or a silently shorter file.
func TestEveryTruncationFails(t *testing.T) {
	data := sample().bytes()
	for n := 0; n < len(data); n++ {
		if _, err := read(t, data[:n]); err == nil {
			t.Fatalf("prefix of %d/%d bytes was accepted", n, len(data))
		}
	}
}

func TestCorruptFiles(t *testing.T) {
	cases := []struct {
		name string
		data func() []byte
		want string
	}{
		{"wrong magic", func() []byte { d := sample().bytes(); copy(d, "GGML"); return d }, "not a GGUF file"},
		{"version 1", func() []byte { d := sample().bytes(); d[4] = 1; return d }, "unsupported GGUF version 1"},
		{"huge array", func() []byte {
			d := sample().bytes()
			i := bytes.Index(d, []byte("tokenizer.ggml.tokens")) + len("tokenizer.ggml.tokens") + 4 + 4
			for j := 0; j < 8; j++ {
				d[i+j] = 0xff
			}
			return d
		}, "does not fit"},
		{"unknown tensor type", func() []byte {
			b := sample()
			b.tensors[1].typ = 99
			return b.bytes()
		}, "unsupported type type(99)"},
		{"row not whole blocks", func() []byte {
			b := sample()
			b.tensors[1].shape = []uint64{16, 4}
			return b.bytes()
		}, "not a multiple of the Q8_0 block size"},
		{"shape disagrees with size", func() []byte {
			b := sample()
			b.tensors[0].shape = []uint64{8, 4}
			return b.bytes()
		}, "overlaps tensor"},
		{"misaligned offset", func() []byte {
			b := sample()
			b.tensors[2].offset += 4
			return b.bytes()
		}, "not aligned"},
		{"duplicate key", func() []byte {
			return sample().add("general.architecture", "qwen2").bytes()
		}, "duplicate metadata key"},
		{"five dims", func() []byte {
			b := sample()
			b.tensors[2].shape = []uint64{8, 1, 1, 1, 1}
			return b.bytes()
		}, "5 dimensions"},
		{"bad alignment", func() []byte {
			return sample().add("general.alignment", uint32(3)).bytes()
		}, "power of two"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := read(t, c.data())
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want error containing %q", err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "gguf: test.gguf: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
		})
	}
}

func TestOpenNamesFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.gguf")
	if err := os.WriteFile(p, []byte("GGUF\x03\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(p); err == nil || !strings.Contains(err.Error(), p+": truncated") {
		t.Fatalf("got %v", err)
	}
	if _, err := Open(filepath.Join(dir, "absent.gguf")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("got %v", err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("got %v", err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add(sample().bytes())
	f.Add([]byte("GGUF"))
	b := sample()
	b.align = 64
	f.Add(b.add("general.alignment", uint32(64)).bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Read("fuzz.gguf", bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		for _, x := range g.Tensors {
			if g.DataOffset+int64(x.Offset+x.Bytes) > int64(len(data)) {
				t.Fatalf("accepted tensor %q beyond the end of the file", x.Name)
			}
		}
	})
}
