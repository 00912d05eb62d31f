package convert

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"actor/gguf"
)

// Type is the storage type of the converted weight matrices.
type Type string

// The output types `actor convert --type` accepts. Norms and biases are
// always stored as F32; Q8_0 falls back to F16 for a matrix whose rows
// are not a multiple of 32 elements long.
const (
	F32  Type = "f32"
	F16  Type = "f16"
	Q8_0 Type = "q8_0"
)

// ParseType checks a --type value.
func ParseType(s string) (Type, error) {
	switch t := Type(s); t {
	case F32, F16, Q8_0:
		return t, nil
	}
	return "", fmt.Errorf("unknown output type %q (want f32, f16 or q8_0)", s)
}

// fileType is general.file_type for the type (llama_ftype: ALL_F32,
// MOSTLY_F16, MOSTLY_Q8_0).
func (t Type) fileType() uint32 {
	switch t {
	case F16:
		return 1
	case Q8_0:
		return 7
	}
	return 0
}

// ggmlType is the tensor type of a matrix whose rows have ne0 elements.
func (t Type) ggmlType(ne0 int64) gguf.Type {
	switch {
	case t == F16, t == Q8_0 && ne0%32 != 0:
		return gguf.TypeF16
	case t == Q8_0:
		return gguf.TypeQ8_0
	}
	return gguf.TypeF32
}

// encodeTensor stores row-major values (rows of ne0 elements) as typ.
func encodeTensor(x []float32, ne0 int64, typ gguf.Type) ([]byte, error) {
	switch typ {
	case gguf.TypeF32:
		out := make([]byte, 4*len(x))
		for i, v := range x {
			binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v))
		}
		return out, nil
	case gguf.TypeF16:
		out := make([]byte, 2*len(x))
		for i, v := range x {
			binary.LittleEndian.PutUint16(out[2*i:], float16Bits(v))
		}
		return out, nil
	case gguf.TypeQ8_0:
		if ne0%32 != 0 || len(x)%32 != 0 {
			return nil, fmt.Errorf("Q8_0 needs rows of a multiple of 32 elements, not %d", ne0)
		}
		return quantizeQ8_0(x), nil
	}
	return nil, fmt.Errorf("cannot encode tensor type %s", typ)
}

// float16Bits converts to IEEE 754 binary16, rounding to nearest even (as
// F16C's vcvtps2ph and PyTorch's .half() do); overflow gives infinity.
func float16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp == 0xff {
		if mant != 0 {
			return sign | 0x7e00 // NaN
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	switch {
	case e >= 31:
		return sign | 0x7c00
	case e <= 0: // subnormal half (or zero): units of 2^-24
		if e < -10 {
			return sign
		}
		m := mant | 0x800000
		shift := uint(14 - e)
		return sign | uint16(roundShift(m, shift))
	}
	// A carry out of the mantissa correctly bumps the exponent (to
	// infinity above the largest half).
	return sign | uint16(uint32(e)<<10+roundShift(mant, 13))
}

// roundShift returns m >> shift rounded to nearest, ties to even.
func roundShift(m uint32, shift uint) uint32 {
	q := m >> shift
	rem := m & (1<<shift - 1)
	half := uint32(1) << (shift - 1)
	if rem > half || rem == half && q&1 == 1 {
		q++
	}
	return q
}

// quantizeQ8_0 encodes blocks of 32 values as a float16 scale d = max|x|/127
// and 32 int8 round(x/d), exactly as ggml's quantize_row_q8_0_ref.
func quantizeQ8_0(x []float32) []byte {
	out := make([]byte, 0, len(x)/32*34)
	for blk := range slices.Chunk(x, 32) {
		var amax float32
		for _, v := range blk {
			amax = max(amax, float32(math.Abs(float64(v))))
		}
		d := amax / 127
		var id float32
		if d != 0 {
			id = 1 / d
		}
		out = binary.LittleEndian.AppendUint16(out, float16Bits(d))
		for _, v := range blk {
			p := v * id
			out = append(out, byte(int8(math.Round(float64(p)))))
		}
	}
	return out
}
