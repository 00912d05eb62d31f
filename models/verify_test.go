package models

import (
	"strings"
	"testing"
)

func TestCheckGGUF(t *testing.T) {
	dir := t.TempDir()
	good := ggufBytes("qwen2", map[string]uint32{"qwen2.block_count": 28, "general.file_type": 15}, 0)
	model := func(data []byte, arch string, meta map[string]uint64) *Model {
		return &Model{Name: "t", Format: FormatGGUF, Files: []File{{"", int64(len(data)), sum(data)}}, Architecture: arch, Metadata: meta}
	}
	path := writeFile(t, dir, "good.gguf", good)
	if err := model(good, "qwen2", map[string]uint64{"qwen2.block_count": 28, "general.file_type": 15}).check(path); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		data []byte
		arch string
		meta map[string]uint64
		want string
	}{
		{good, "llama", nil, `architecture "qwen2", want "llama"`},
		{good, "qwen2", map[string]uint64{"qwen2.block_count": 24}, "qwen2.block_count = 28, want 24"},
		{good, "qwen2", map[string]uint64{"qwen2.embedding_length": 1536}, `"qwen2.embedding_length" is missing`},
		{append([]byte("GGML"), good[4:]...), "qwen2", nil, "not a GGUF file"},
		{good[:40], "qwen2", nil, "truncated"},
	} {
		p := writeFile(t, dir, "good.gguf", c.data)
		err := model(c.data, c.arch, c.meta).check(p)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("check: err = %v, want %q and the path", err, c.want)
		}
	}
	// A file of the right size with other bytes fails on its digest.
	m := model(good, "qwen2", nil)
	bad := []byte(strings.Repeat("x", len(good)))
	if err := m.check(writeFile(t, dir, "good.gguf", bad)); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Errorf("digest check: err = %v", err)
	}
}
