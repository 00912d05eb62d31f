package gguf

import (
	"bytes"
	"encoding/binary"
	"math"
)

// builder writes GGUF bytes for tests, independently of the reader.
type builder struct {
	kv      bytes.Buffer
	nKV     int
	tensors []testTensor
	align   uint64
}

type testTensor struct {
	name   string
	shape  []uint64
	typ    Type
	offset uint64
	data   []byte
}

func (b *builder) str(w *bytes.Buffer, s string) {
	binary.Write(w, binary.LittleEndian, uint64(len(s)))
	w.WriteString(s)
}

// add appends a metadata pair; v is one of the Go types the reader returns.
func (b *builder) add(key string, v any) *builder {
	b.nKV++
	b.str(&b.kv, key)
	b.value(&b.kv, v, true)
	return b
}

func (b *builder) value(w *bytes.Buffer, v any, tagged bool) {
	tag := func(t valueType) {
		if tagged {
			binary.Write(w, binary.LittleEndian, uint32(t))
		}
	}
	switch x := v.(type) {
	case string:
		tag(vString)
		b.str(w, x)
	case uint8:
		tag(vUint8)
		w.WriteByte(x)
	case int32:
		tag(vInt32)
		binary.Write(w, binary.LittleEndian, x)
	case uint32:
		tag(vUint32)
		binary.Write(w, binary.LittleEndian, x)
	case uint64:
		tag(vUint64)
		binary.Write(w, binary.LittleEndian, x)
	case float32:
		tag(vFloat32)
		binary.Write(w, binary.LittleEndian, math.Float32bits(x))
	case float64:
		tag(vFloat64)
		binary.Write(w, binary.LittleEndian, math.Float64bits(x))
	case bool:
		tag(vBool)
		if x {
			w.WriteByte(1)
		} else {
			w.WriteByte(0)
		}
	case []string:
		tag(vArray)
		binary.Write(w, binary.LittleEndian, uint32(vString))
		binary.Write(w, binary.LittleEndian, uint64(len(x)))
		for _, s := range x {
			b.str(w, s)
		}
	case []int32:
		tag(vArray)
		binary.Write(w, binary.LittleEndian, uint32(vInt32))
		binary.Write(w, binary.LittleEndian, uint64(len(x)))
		binary.Write(w, binary.LittleEndian, x)
	case []float32:
		tag(vArray)
		binary.Write(w, binary.LittleEndian, uint32(vFloat32))
		binary.Write(w, binary.LittleEndian, uint64(len(x)))
		binary.Write(w, binary.LittleEndian, x)
	default:
		panic("builder: unsupported value type")
	}
}

// tensor appends a tensor placed after the previous one, aligned.
func (b *builder) tensor(name string, typ Type, data []byte, shape ...uint64) *builder {
	off := uint64(0)
	if n := len(b.tensors); n > 0 {
		last := b.tensors[n-1]
		off = last.offset + uint64(len(last.data))
		off += (b.alignment() - off%b.alignment()) % b.alignment()
	}
	b.tensors = append(b.tensors, testTensor{name, shape, typ, off, data})
	return b
}

func (b *builder) alignment() uint64 {
	if b.align == 0 {
		return 32
	}
	return b.align
}

func (b *builder) bytes() []byte {
	var w bytes.Buffer
	w.WriteString(Magic)
	binary.Write(&w, binary.LittleEndian, uint32(3))
	binary.Write(&w, binary.LittleEndian, uint64(len(b.tensors)))
	binary.Write(&w, binary.LittleEndian, uint64(b.nKV))
	w.Write(b.kv.Bytes())
	for _, t := range b.tensors {
		b.str(&w, t.name)
		binary.Write(&w, binary.LittleEndian, uint32(len(t.shape)))
		binary.Write(&w, binary.LittleEndian, t.shape)
		binary.Write(&w, binary.LittleEndian, uint32(t.typ))
		binary.Write(&w, binary.LittleEndian, t.offset)
	}
	for uint64(w.Len())%b.alignment() != 0 {
		w.WriteByte(0)
	}
	start := w.Len()
	for _, t := range b.tensors {
		for uint64(w.Len()-start) < t.offset {
			w.WriteByte(0)
		}
		w.Write(t.data)
	}
	return w.Bytes()
}

// sample is a small valid file used by several tests.
func sample() *builder {
	b := &builder{}
	b.add("general.architecture", "llama").
		add("llama.block_count", uint32(2)).
		add("llama.rope.freq_base", float32(10000)).
		add("tokenizer.ggml.tokens", []string{"a", "b", "ab"}).
		add("tokenizer.ggml.token_type", []int32{1, 1, 3}).
		add("tokenizer.ggml.scores", []float32{0, -1, -2}).
		add("tokenizer.ggml.add_bos_token", true).
		add("general.file_type", uint8(1))
	b.tensor("token_embd.weight", TypeF32, make([]byte, 4*8*3), 8, 3)
	b.tensor("blk.0.attn_q.weight", TypeQ8_0, make([]byte, 34*2), 32, 2)
	b.tensor("output_norm.weight", TypeF16, make([]byte, 2*8), 8)
	return b
}
