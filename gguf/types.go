package gguf

import "fmt"

// Type is a ggml tensor element type as stored in a GGUF tensor directory.
type Type uint32

// The ggml tensor types this reader knows the block layout of. Numbers are
// fixed by the GGUF format (ggml.h, enum ggml_type).
const (
	TypeF32  Type = 0
	TypeF16  Type = 1
	TypeQ4_0 Type = 2
	TypeQ4_1 Type = 3
	TypeQ5_0 Type = 6
	TypeQ5_1 Type = 7
	TypeQ8_0 Type = 8
	TypeQ8_1 Type = 9
	TypeQ2_K Type = 10
	TypeQ3_K Type = 11
	TypeQ4_K Type = 12
	TypeQ5_K Type = 13
	TypeQ6_K Type = 14
	TypeQ8_K Type = 15
	TypeI8   Type = 24
	TypeI16  Type = 25
	TypeI32  Type = 26
	TypeI64  Type = 27
	TypeF64  Type = 28
	TypeBF16 Type = 30
)

// layout is the number of elements per block and the bytes per block.
type layout struct {
	name      string
	blockSize uint64
	typeSize  uint64
}

var layouts = map[Type]layout{
	TypeF32:  {"F32", 1, 4},
	TypeF16:  {"F16", 1, 2},
	TypeQ4_0: {"Q4_0", 32, 18},
	TypeQ4_1: {"Q4_1", 32, 20},
	TypeQ5_0: {"Q5_0", 32, 22},
	TypeQ5_1: {"Q5_1", 32, 24},
	TypeQ8_0: {"Q8_0", 32, 34},
	TypeQ8_1: {"Q8_1", 32, 36},
	TypeQ2_K: {"Q2_K", 256, 84},
	TypeQ3_K: {"Q3_K", 256, 110},
	TypeQ4_K: {"Q4_K", 256, 144},
	TypeQ5_K: {"Q5_K", 256, 176},
	TypeQ6_K: {"Q6_K", 256, 210},
	TypeQ8_K: {"Q8_K", 256, 292},
	TypeI8:   {"I8", 1, 1},
	TypeI16:  {"I16", 1, 2},
	TypeI32:  {"I32", 1, 4},
	TypeI64:  {"I64", 1, 8},
	TypeF64:  {"F64", 1, 8},
	TypeBF16: {"BF16", 1, 2},
}

// String returns the ggml name of the type ("Q4_K"), or "type(N)" for a
// type this reader does not know.
func (t Type) String() string {
	if l, ok := layouts[t]; ok {
		return l.name
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// Known reports whether the reader knows the block layout of t, i.e. whether
// tensor sizes of this type can be checked.
func (t Type) Known() bool {
	_, ok := layouts[t]
	return ok
}

// BlockSize is the number of elements in one quantisation block (1 for
// plain types). It is 0 for unknown types.
func (t Type) BlockSize() uint64 { return layouts[t].blockSize }

// rowBytes returns the byte size of n elements, or an error when n is not a
// whole number of blocks.
func (t Type) rowBytes(n uint64) (uint64, error) {
	l, ok := layouts[t]
	if !ok {
		return 0, fmt.Errorf("unknown tensor type %d", uint32(t))
	}
	if n%l.blockSize != 0 {
		return 0, fmt.Errorf("row of %d elements is not a multiple of the %s block size %d", n, l.name, l.blockSize)
	}
	return n / l.blockSize * l.typeSize, nil
}
