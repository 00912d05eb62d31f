package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// KV is one metadata pair to write; Value is one of the Go types the reader
// returns (uint8 … int64, float32, float64, bool, string, or a slice of one
// of those).
type KV struct {
	Key   string
	Value any
}

// TensorData is one tensor to write: its directory entry and its bytes,
// already encoded in Type (e.g. row-major float32 for TypeF32, with
// Shape[0] the contiguous dimension).
type TensorData struct {
	Name  string
	Shape []uint64
	Type  Type
	Data  []byte
}

// Write encodes a GGUF v3 file with the given metadata (in order) and
// tensors (in order), aligning tensor data to alignment bytes (32 when 0).
// It checks each tensor's byte count against its shape and type.
func Write(w io.Writer, kvs []KV, tensors []TensorData, alignment uint64) error {
	if alignment == 0 {
		alignment = 32
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	e := &encoder{w: bw}
	e.raw([]byte(Magic))
	e.u32(3)
	e.u64(uint64(len(tensors)))
	e.u64(uint64(len(kvs)))
	for _, kv := range kvs {
		e.str(kv.Key)
		if err := e.value(kv.Value, true); err != nil {
			return fmt.Errorf("metadata %q: %w", kv.Key, err)
		}
	}
	offsets := make([]uint64, len(tensors))
	next := uint64(0)
	for i, t := range tensors {
		t := t
		want, err := (Tensor{Shape: t.Shape, Type: t.Type}).size()
		if err != nil {
			return fmt.Errorf("tensor %q: %w", t.Name, err)
		}
		if want != uint64(len(t.Data)) {
			return fmt.Errorf("tensor %q: %d bytes given, shape %v of %s needs %d", t.Name, len(t.Data), t.Shape, t.Type, want)
		}
		offsets[i] = next
		next += pad(uint64(len(t.Data)), alignment)
		e.str(t.Name)
		e.u32(uint32(len(t.Shape)))
		for _, d := range t.Shape {
			e.u64(d)
		}
		e.u32(uint32(t.Type))
		e.u64(offsets[i])
	}
	e.zeros(pad(e.n, alignment) - e.n)
	for _, t := range tensors {
		e.raw(t.Data)
		e.zeros(pad(uint64(len(t.Data)), alignment) - uint64(len(t.Data)))
	}
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

// WriteFile writes a GGUF file atomically: to a temporary file beside path,
// then renamed over it, so a failure never leaves a partial file.
func WriteFile(path string, kvs []KV, tensors []TensorData, alignment uint64) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := Write(tmp, kvs, tensors, alignment); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func pad(n, a uint64) uint64 { return (n + a - 1) / a * a }

// size is the byte size of a tensor of this shape and type.
func (t Tensor) size() (uint64, error) {
	if len(t.Shape) == 0 || len(t.Shape) > maxDims {
		return 0, fmt.Errorf("%d dimensions (want 1 to %d)", len(t.Shape), maxDims)
	}
	row, err := t.Type.rowBytes(t.Shape[0])
	if err != nil {
		return 0, err
	}
	return row * (t.Elements() / t.Shape[0]), nil
}

type encoder struct {
	w   *bufio.Writer
	n   uint64
	err error
}

func (e *encoder) raw(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
		e.n += uint64(len(b))
	}
}

func (e *encoder) zeros(n uint64) { e.raw(make([]byte, n)) }

func (e *encoder) u32(v uint32) { e.raw(binary.LittleEndian.AppendUint32(nil, v)) }

func (e *encoder) u64(v uint64) { e.raw(binary.LittleEndian.AppendUint64(nil, v)) }

func (e *encoder) str(s string) {
	e.u64(uint64(len(s)))
	e.raw([]byte(s))
}

// value writes v, preceded by its type tag when tagged.
func (e *encoder) value(v any, tagged bool) error {
	tag := func(t valueType) {
		if tagged {
			e.u32(uint32(t))
		}
	}
	arr := func(t valueType, n int) {
		tag(vArray)
		e.u32(uint32(t))
		e.u64(uint64(n))
	}
	switch x := v.(type) {
	case uint8:
		tag(vUint8)
		e.raw([]byte{x})
	case int8:
		tag(vInt8)
		e.raw([]byte{byte(x)})
	case uint16:
		tag(vUint16)
		e.raw(binary.LittleEndian.AppendUint16(nil, x))
	case int16:
		tag(vInt16)
		e.raw(binary.LittleEndian.AppendUint16(nil, uint16(x)))
	case uint32:
		tag(vUint32)
		e.u32(x)
	case int32:
		tag(vInt32)
		e.u32(uint32(x))
	case uint64:
		tag(vUint64)
		e.u64(x)
	case int64:
		tag(vInt64)
		e.u64(uint64(x))
	case float32:
		tag(vFloat32)
		e.u32(math.Float32bits(x))
	case float64:
		tag(vFloat64)
		e.u64(math.Float64bits(x))
	case bool:
		tag(vBool)
		if x {
			e.raw([]byte{1})
		} else {
			e.raw([]byte{0})
		}
	case string:
		tag(vString)
		e.str(x)
	case []string:
		arr(vString, len(x))
		for _, s := range x {
			e.str(s)
		}
	case []int32:
		arr(vInt32, len(x))
		for _, y := range x {
			e.u32(uint32(y))
		}
	case []uint32:
		arr(vUint32, len(x))
		for _, y := range x {
			e.u32(y)
		}
	case []float32:
		arr(vFloat32, len(x))
		for _, y := range x {
			e.u32(math.Float32bits(y))
		}
	case []int64:
		arr(vInt64, len(x))
		for _, y := range x {
			e.u64(uint64(y))
		}
	case []bool:
		arr(vBool, len(x))
		for _, y := range x {
			if y {
				e.raw([]byte{1})
			} else {
				e.raw([]byte{0})
			}
		}
	default:
		return fmt.Errorf("unsupported metadata value type %T", v)
	}
	return nil
}
