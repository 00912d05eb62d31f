package ggml

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	fsggml "github.com/ollama/ollama/fs/ggml"
	ggmlbe "github.com/ollama/ollama/ml/backend/ggml"
)

// randomModel writes a random-weight llama GGUF with the shape of p whose
// matrices have type typ, and returns its path. With dequant the matrices
// are quantised to typ and stored back as float32: the same effective
// weights as the typ model, for a reference that isolates the kernels.
func randomModel(t *testing.T, p Params, ffn int, typ fsggml.TensorType, seed uint64, dequant bool) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var ts []*fsggml.Tensor
	add := func(name string, kind fsggml.TensorType, std float32, bias float32, shape ...uint64) {
		n := uint64(1)
		for _, d := range shape {
			n *= d
		}
		f := make([]float32, n)
		for i := range f {
			f[i] = bias + std*float32(rng.NormFloat64())
		}
		var data []byte
		if kind != fsggml.TensorTypeF32 {
			data = ggmlbe.Quantize(kind, f, shape)
			if !dequant {
				ts = append(ts, &fsggml.Tensor{Name: name, Kind: uint32(kind), Shape: shape, WriterTo: bytesWriter(data)})
				return
			}
			f = ggmlbe.ConvertToF32(data, uint32(kind), n)
			kind = fsggml.TensorTypeF32
		}
		var buf bytes.Buffer
		binary.Write(&buf, binary.LittleEndian, f)
		data = buf.Bytes()
		ts = append(ts, &fsggml.Tensor{Name: name, Kind: uint32(kind), Shape: shape, WriterTo: bytesWriter(data)})
	}
	H, V, F := uint64(p.Embed), uint64(p.Vocab), uint64(ffn)
	q, kv := uint64(p.Heads*p.HeadDim), uint64(p.KVHeads*p.HeadDim)
	add("token_embd.weight", typ, 0.5, 0, H, V)
	add("output_norm.weight", fsggml.TensorTypeF32, 0.1, 1, H)
	add("output.weight", typ, 0.1, 0, H, V)
	for i := range p.Layers {
		pre := "blk." + strconv.Itoa(i) + "."
		add(pre+"attn_norm.weight", fsggml.TensorTypeF32, 0.1, 1, H)
		add(pre+"attn_q.weight", typ, 0.04, 0, H, q)
		add(pre+"attn_k.weight", typ, 0.04, 0, H, kv)
		add(pre+"attn_v.weight", typ, 0.1, 0, H, kv)
		add(pre+"attn_output.weight", typ, 0.05, 0, q, H)
		add(pre+"ffn_norm.weight", fsggml.TensorTypeF32, 0.1, 1, H)
		add(pre+"ffn_gate.weight", typ, 0.05, 0, H, F)
		add(pre+"ffn_up.weight", typ, 0.05, 0, H, F)
		add(pre+"ffn_down.weight", typ, 0.05, 0, F, H)
	}
	kvs := fsggml.KV{
		"general.architecture": "llama", "general.file_type": uint32(typ),
		"llama.vocab_size": uint32(V), "llama.context_length": uint32(4096), "llama.embedding_length": uint32(H),
		"llama.block_count": uint32(p.Layers), "llama.feed_forward_length": uint32(F),
		"llama.attention.head_count": uint32(p.Heads), "llama.attention.head_count_kv": uint32(p.KVHeads),
		"llama.rope.dimension_count": uint32(p.RopeDim), "llama.attention.layer_norm_rms_epsilon": p.Eps,
		"llama.rope.freq_base": p.RopeBase,
	}
	path := filepath.Join(t.TempDir(), "random-"+typ.String()+"-"+strconv.FormatBool(dequant)+".gguf")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := fsggml.WriteGGUF(f, kvs, ts); err != nil {
		t.Fatal(err)
	}
	return path
}

type bytesWriter []byte

func (b bytesWriter) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(b)
	return int64(n), err
}
