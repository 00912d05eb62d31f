// Package safetensors reads Hugging Face .safetensors checkpoints: an
// 8-byte little-endian header length, a JSON header naming each tensor's
// dtype, shape and byte range, then the tensor data. The header is
// validated the way the reference implementation does (size limit, no gaps
// or overlaps, sizes matching shapes), so a converter can trust what it
// reads.
package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"sort"
)

// MaxHeaderSize is the largest JSON header accepted (the reference
// implementation's limit, 100 MB).
const MaxHeaderSize = 100_000_000

// DType is a tensor element type as spelled in the header ("F32", "BF16").
type DType string

// dtypeBits is the element size in bits of every known dtype.
var dtypeBits = map[DType]int64{
	"BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8,
	"I16": 16, "U16": 16, "F16": 16, "BF16": 16,
	"I32": 32, "U32": 32, "F32": 32,
	"I64": 64, "U64": 64, "F64": 64, "C64": 64,
	"F4": 4, "F6_E2M3": 6, "F6_E3M2": 6,
}

// Tensor describes one tensor of a file.
type Tensor struct {
	Name  string
	DType DType
	Shape []int64
	// Offset is the absolute position of the data in the file; Size its
	// length in bytes.
	Offset int64
	Size   int64
}

// Elements returns the number of elements (1 for a scalar).
func (t Tensor) Elements() int64 {
	n := int64(1)
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// File is an open safetensors file.
type File struct {
	Path     string
	Metadata map[string]string
	Tensors  []Tensor // sorted by name
	r        io.ReaderAt
	closer   io.Closer
}

// Error is returned for every malformed file; it names the file.
type Error struct {
	Path string
	Msg  string
}

// Error formats the problem with the file name.
func (e *Error) Error() string { return "safetensors: " + e.Path + ": " + e.Msg }

// Open reads and validates the header of the file at path; tensor data is
// read on demand. Close the file when done.
func Open(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, err
	}
	f, err := Parse(path, fh, st.Size())
	if err != nil {
		fh.Close()
		return nil, err
	}
	f.closer = fh
	return f, nil
}

// Close releases the file.
func (f *File) Close() error {
	if f.closer == nil {
		return nil
	}
	err := f.closer.Close()
	f.closer = nil
	return err
}

// headerEntry is one tensor's JSON description; all three fields are
// required (other fields are ignored, as the reference does).
type headerEntry struct {
	DType       *DType   `json:"dtype"`
	Shape       *[]int64 `json:"shape"`
	DataOffsets []int64  `json:"data_offsets"`
}

// Parse validates the header of a safetensors image of size bytes read
// through r; name is used in errors.
func Parse(name string, r io.ReaderAt, size int64) (*File, error) {
	fail := func(format string, a ...any) (*File, error) {
		return nil, &Error{name, fmt.Sprintf(format, a...)}
	}
	var lenBuf [8]byte
	if size < 8 {
		return fail("file of %d bytes is too short for a header length", size)
	}
	if _, err := r.ReadAt(lenBuf[:], 0); err != nil {
		return fail("reading header length: %v", err)
	}
	n := binary.LittleEndian.Uint64(lenBuf[:])
	if n > MaxHeaderSize {
		return fail("header of %d bytes exceeds the %d-byte limit", n, MaxHeaderSize)
	}
	if int64(n) > size-8 {
		return fail("header of %d bytes runs past the end of the %d-byte file", n, size)
	}
	header := make([]byte, n)
	if _, err := r.ReadAt(header, 8); err != nil {
		return fail("reading header: %v", err)
	}
	if len(header) == 0 || header[0] != '{' {
		return fail("header does not start with '{'")
	}
	entries, meta, err := decodeHeader(header)
	if err != nil {
		return fail("header: %v", err)
	}
	dataStart := 8 + int64(n)
	f := &File{Path: name, Metadata: meta, r: r}
	for tname, e := range entries {
		t, err := tensorOf(tname, e, dataStart)
		if err != nil {
			return fail("%v", err)
		}
		f.Tensors = append(f.Tensors, t)
	}
	if err := checkLayout(f.Tensors, dataStart, size); err != nil {
		return fail("%v", err)
	}
	sort.Slice(f.Tensors, func(i, j int) bool { return f.Tensors[i].Name < f.Tensors[j].Name })
	return f, nil
}

// decodeHeader reads the header object, refusing duplicate names and
// anything after the object but space padding.
func decodeHeader(header []byte) (map[string]headerEntry, map[string]string, error) {
	dec := json.NewDecoder(bytes.NewReader(header))
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	entries := map[string]headerEntry{}
	var meta map[string]string
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, _ := tok.(string)
		if seen[key] {
			return nil, nil, fmt.Errorf("duplicate entry %q", key)
		}
		seen[key] = true
		if key == "__metadata__" {
			if err := dec.Decode(&meta); err != nil {
				return nil, nil, fmt.Errorf("__metadata__: %v", err)
			}
			continue
		}
		var e headerEntry
		if err := dec.Decode(&e); err != nil {
			return nil, nil, fmt.Errorf("tensor %q: %v", key, err)
		}
		entries[key] = e
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	rest := header[dec.InputOffset():]
	if len(bytes.Trim(rest, " ")) != 0 {
		return nil, nil, errors.New("trailing bytes after the header object")
	}
	return entries, meta, nil
}

// tensorOf checks one entry: known dtype, non-negative dims, byte range
// matching the element count.
func tensorOf(name string, e headerEntry, dataStart int64) (Tensor, error) {
	if e.DType == nil || e.Shape == nil || e.DataOffsets == nil {
		return Tensor{}, fmt.Errorf("tensor %q: dtype, shape and data_offsets are all required", name)
	}
	dtype, shape := *e.DType, *e.Shape
	b, ok := dtypeBits[dtype]
	if !ok {
		return Tensor{}, fmt.Errorf("tensor %q: unknown dtype %q", name, dtype)
	}
	elems := uint64(1)
	for _, d := range shape {
		if d < 0 {
			return Tensor{}, fmt.Errorf("tensor %q: negative dimension in shape %v", name, shape)
		}
		hi, lo := bits.Mul64(elems, uint64(d))
		if hi != 0 || lo > math.MaxInt64/8 {
			return Tensor{}, fmt.Errorf("tensor %q: shape %v is too large", name, shape)
		}
		elems = lo
	}
	nbits := elems * uint64(b)
	if nbits%8 != 0 {
		return Tensor{}, fmt.Errorf("tensor %q: %d elements of %s do not fill whole bytes", name, elems, dtype)
	}
	if len(e.DataOffsets) != 2 {
		return Tensor{}, fmt.Errorf("tensor %q: data_offsets must be [begin, end], got %v", name, e.DataOffsets)
	}
	begin, end := e.DataOffsets[0], e.DataOffsets[1]
	if begin < 0 || end < begin {
		return Tensor{}, fmt.Errorf("tensor %q: bad data offsets [%d, %d]", name, begin, end)
	}
	if uint64(end-begin) != nbits/8 {
		return Tensor{}, fmt.Errorf("tensor %q: %d bytes for shape %v of %s (want %d)", name, end-begin, shape, dtype, nbits/8)
	}
	return Tensor{Name: name, DType: dtype, Shape: shape, Offset: dataStart + begin, Size: end - begin}, nil
}

// checkLayout requires the tensors, in offset order, to tile the data
// section exactly: no gap, no overlap, nothing left over.
func checkLayout(ts []Tensor, dataStart, size int64) error {
	order := append([]Tensor(nil), ts...)
	sort.Slice(order, func(i, j int) bool {
		if order[i].Offset != order[j].Offset {
			return order[i].Offset < order[j].Offset
		}
		return order[i].Size < order[j].Size
	})
	pos := dataStart
	for _, t := range order {
		if t.Offset != pos {
			return fmt.Errorf("tensor %q starts at data byte %d, expected %d (gap or overlap)", t.Name, t.Offset-dataStart, pos-dataStart)
		}
		pos += t.Size
	}
	if pos != size {
		return fmt.Errorf("tensors cover %d data bytes but the file holds %d", pos-dataStart, size-dataStart)
	}
	return nil
}

// Tensor returns the named tensor.
func (f *File) Tensor(name string) (Tensor, bool) {
	i := sort.Search(len(f.Tensors), func(i int) bool { return f.Tensors[i].Name >= name })
	if i < len(f.Tensors) && f.Tensors[i].Name == name {
		return f.Tensors[i], true
	}
	return Tensor{}, false
}

// Raw reads a tensor's bytes.
func (f *File) Raw(t Tensor) ([]byte, error) {
	buf := make([]byte, t.Size)
	if _, err := f.r.ReadAt(buf, t.Offset); err != nil {
		return nil, &Error{f.Path, fmt.Sprintf("reading tensor %q: %v", t.Name, err)}
	}
	return buf, nil
}

// Float32 reads a floating-point tensor (F32, F16, BF16 or F64) as float32
// values in row-major order.
func (f *File) Float32(t Tensor) ([]float32, error) {
	raw, err := f.Raw(t)
	if err != nil {
		return nil, err
	}
	n := t.Elements()
	out := make([]float32, n)
	switch t.DType {
	case "F32":
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
	case "F16":
		for i := range out {
			out[i] = halfToFloat32(binary.LittleEndian.Uint16(raw[2*i:]))
		}
	case "BF16":
		for i := range out {
			out[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(raw[2*i:])) << 16)
		}
	case "F64":
		for i := range out {
			out[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:])))
		}
	default:
		return nil, &Error{f.Path, fmt.Sprintf("tensor %q has dtype %s, not a float type", t.Name, t.DType)}
	}
	return out, nil
}

// halfToFloat32 converts an IEEE 754 binary16 value exactly.
func halfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // infinity or NaN
		return math.Float32frombits(sign | 0xff<<23 | mant<<13)
	case exp != 0: // normal
		return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
	case mant == 0: // signed zero
		return math.Float32frombits(sign)
	}
	// Subnormal: mant · 2^-24.
	v := float32(mant) * (1.0 / (1 << 24))
	if sign != 0 {
		v = -v
	}
	return v
}
