package gguf

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"reflect"
)

// valueType is the GGUF metadata value type tag.
type valueType uint32

const (
	vUint8 valueType = iota
	vInt8
	vUint16
	vInt16
	vUint32
	vInt32
	vFloat32
	vBool
	vString
	vArray
	vUint64
	vInt64
	vFloat64
)

// maxArrayDepth bounds nested arrays (real files use depth 1).
const maxArrayDepth = 4

var scalarBytes = map[valueType]int{
	vUint8: 1, vInt8: 1, vUint16: 2, vInt16: 2, vUint32: 4, vInt32: 4, vFloat32: 4,
	vBool: 1, vUint64: 8, vInt64: 8, vFloat64: 8,
}

func (d *decoder) value(t valueType, depth int) (any, error) {
	switch t {
	case vString:
		return d.str()
	case vArray:
		if depth >= maxArrayDepth {
			return nil, fmt.Errorf("arrays nested deeper than %d", maxArrayDepth)
		}
		et, err := d.u32()
		if err != nil {
			return nil, err
		}
		return d.array(valueType(et), depth+1)
	}
	n, ok := scalarBytes[t]
	if !ok {
		return nil, fmt.Errorf("unknown value type %d", t)
	}
	b, err := d.read(n)
	if err != nil {
		return nil, err
	}
	return decodeScalar(t, b)
}

// Little-endian element decoders, shared by scalars and arrays.
var (
	le     = binary.LittleEndian
	getU8  = func(b []byte) uint8 { return b[0] }
	getI8  = func(b []byte) int8 { return int8(b[0]) }
	getU16 = func(b []byte) uint16 { return le.Uint16(b) }
	getI16 = func(b []byte) int16 { return int16(le.Uint16(b)) }
	getU32 = func(b []byte) uint32 { return le.Uint32(b) }
	getI32 = func(b []byte) int32 { return int32(le.Uint32(b)) }
	getF32 = func(b []byte) float32 { return math.Float32frombits(le.Uint32(b)) }
	getU64 = func(b []byte) uint64 { return le.Uint64(b) }
	getI64 = func(b []byte) int64 { return int64(le.Uint64(b)) }
	getF64 = func(b []byte) float64 { return math.Float64frombits(le.Uint64(b)) }
)

func decodeScalar(t valueType, b []byte) (any, error) {
	v, err := typedSlice(t, b, len(b))
	if err != nil {
		return nil, err
	}
	return reflect.ValueOf(v).Index(0).Interface(), nil
}

// each decodes raw as consecutive w-byte elements.
func each[T any](raw []byte, w int, get func([]byte) T) []T {
	out := make([]T, len(raw)/w)
	for i := range out {
		out[i] = get(raw[i*w:])
	}
	return out
}

// typedSlice decodes raw, a packed array of scalar type t with element
// width w, into a slice of the matching Go type.
func typedSlice(t valueType, raw []byte, w int) (any, error) {
	switch t {
	case vUint8:
		return each(raw, w, getU8), nil
	case vInt8:
		return each(raw, w, getI8), nil
	case vUint16:
		return each(raw, w, getU16), nil
	case vInt16:
		return each(raw, w, getI16), nil
	case vUint32:
		return each(raw, w, getU32), nil
	case vInt32:
		return each(raw, w, getI32), nil
	case vFloat32:
		return each(raw, w, getF32), nil
	case vUint64:
		return each(raw, w, getU64), nil
	case vInt64:
		return each(raw, w, getI64), nil
	case vFloat64:
		return each(raw, w, getF64), nil
	case vBool:
		for _, b := range raw {
			if b > 1 {
				return nil, fmt.Errorf("invalid bool byte %d", b)
			}
		}
		return each(raw, w, func(b []byte) bool { return b[0] == 1 }), nil
	}
	return nil, fmt.Errorf("unknown value type %d", t)
}

// array reads n elements of type et into a typed slice.
func (d *decoder) array(et valueType, depth int) (any, error) {
	minBytes := int64(scalarBytes[et])
	if et == vString || et == vArray {
		minBytes = 8
	}
	if minBytes == 0 {
		return nil, fmt.Errorf("array of unknown value type %d", et)
	}
	n, err := d.count("array element", minBytes)
	if err != nil {
		return nil, err
	}
	switch et {
	case vString:
		out := make([]string, n)
		for i := range out {
			if out[i], err = d.str(); err != nil {
				return nil, err
			}
		}
		return out, nil
	case vArray:
		out := make([]any, n)
		for i := range out {
			if out[i], err = d.value(vArray, depth); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	raw := make([]byte, n*int(minBytes))
	if _, err := io.ReadFull(d.r, raw); err != nil {
		return nil, err
	}
	d.pos += int64(len(raw))
	return typedSlice(et, raw, int(minBytes))
}
