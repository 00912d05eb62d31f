// Package gguf reads the header of a GGUF model file: its metadata and its
// tensor directory. It validates everything it reads against the file size
// before any allocation, so a truncated or corrupt file gives one clear
// error naming the file and the problem instead of a panic or a huge
// allocation. Tensor data is not loaded here; the engine's backend does that
// once the file has passed this check.
package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
)

// Magic is the first four bytes of every GGUF file.
const Magic = "GGUF"

// maxDims is ggml's GGML_MAX_DIMS.
const maxDims = 4

// File is a parsed GGUF header.
type File struct {
	// Path is the file the header was read from (used in error messages).
	Path string
	// Version is the GGUF format version (2 or 3).
	Version uint32
	// Metadata maps each key to its value: uint8 … int64, float32,
	// float64, bool, string, or a slice of one of those ([]any for nested
	// arrays).
	Metadata map[string]any
	// Keys lists the metadata keys in file order.
	Keys []string
	// Tensors is the tensor directory in file order.
	Tensors []Tensor
	// Alignment is the data alignment (general.alignment, default 32).
	Alignment uint64
	// DataOffset is the absolute file offset where tensor data starts.
	DataOffset int64
	// Size is the file size in bytes.
	Size int64

	byName map[string]int
}

// Tensor describes one tensor of the directory.
type Tensor struct {
	// Name is the tensor's name, e.g. "blk.0.attn_q.weight".
	Name string
	// Shape is in ggml order: Shape[0] is the contiguous (row) dimension.
	Shape []uint64
	// Type is the element type.
	Type Type
	// Offset is relative to File.DataOffset.
	Offset uint64
	// Bytes is the size of the tensor's data.
	Bytes uint64
}

// Elements returns the number of elements of the tensor.
func (t Tensor) Elements() uint64 {
	n := uint64(1)
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Error is returned for every problem found in a file; it names the file.
type Error struct {
	Path string
	Msg  string
}

// Error is "gguf: PATH: problem".
func (e *Error) Error() string { return "gguf: " + e.Path + ": " + e.Msg }

// Open reads and validates the header of the GGUF file at path.
func Open(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, &Error{path, errors.Unwrap(err).Error()}
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, &Error{path, err.Error()}
	}
	if st.IsDir() {
		return nil, &Error{path, "is a directory, not a GGUF file"}
	}
	return Read(path, fh, st.Size())
}

// Read parses a GGUF header from r, which holds size bytes in all. name is
// used in error messages.
func Read(name string, r io.Reader, size int64) (*File, error) {
	d := &decoder{r: bufio.NewReaderSize(r, 1<<16), size: size}
	f, err := d.file()
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = fmt.Errorf("truncated file (ends inside the header at byte %d)", d.pos)
		}
		return nil, &Error{name, err.Error()}
	}
	f.Path = name
	return f, nil
}

type decoder struct {
	r    *bufio.Reader
	pos  int64
	size int64
	buf  [8]byte
}

func (d *decoder) remaining() int64 { return d.size - d.pos }

func (d *decoder) read(n int) ([]byte, error) {
	if _, err := io.ReadFull(d.r, d.buf[:n]); err != nil {
		return nil, err
	}
	d.pos += int64(n)
	return d.buf[:n], nil
}

func (d *decoder) u32() (uint32, error) {
	b, err := d.read(4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (d *decoder) u64() (uint64, error) {
	b, err := d.read(8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// count reads a u64 count of items that each take at least minBytes, and
// rejects counts the rest of the file cannot hold.
func (d *decoder) count(what string, minBytes int64) (int, error) {
	n, err := d.u64()
	if err != nil {
		return 0, err
	}
	if minBytes > 0 && n > uint64(d.remaining()/minBytes) {
		return 0, fmt.Errorf("%s count %d does not fit in the %d bytes left (corrupt or truncated file)", what, n, d.remaining())
	}
	return int(n), nil
}

func (d *decoder) str() (string, error) {
	n, err := d.count("string length", 1)
	if err != nil {
		return "", err
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(d.r, b); err != nil {
		return "", err
	}
	d.pos += int64(n)
	return string(b), nil
}

func (d *decoder) file() (*File, error) {
	magic, err := d.read(4)
	if err != nil {
		return nil, fmt.Errorf("too short to be a GGUF file (%d bytes)", d.size)
	}
	if string(magic) != Magic {
		return nil, fmt.Errorf("not a GGUF file (magic %q, want %q)", magic, Magic)
	}
	f := &File{Metadata: map[string]any{}, Alignment: 32, Size: d.size, byName: map[string]int{}}
	if f.Version, err = d.u32(); err != nil {
		return nil, err
	}
	if f.Version != 2 && f.Version != 3 {
		return nil, fmt.Errorf("unsupported GGUF version %d (want 2 or 3)", f.Version)
	}
	nTensors, err := d.count("tensor", 24)
	if err != nil {
		return nil, err
	}
	nKV, err := d.count("metadata key", 12)
	if err != nil {
		return nil, err
	}
	for i := 0; i < nKV; i++ {
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		if _, dup := f.Metadata[key]; dup {
			return nil, fmt.Errorf("duplicate metadata key %q", key)
		}
		vt, err := d.u32()
		if err != nil {
			return nil, err
		}
		v, err := d.value(valueType(vt), 0)
		if err != nil {
			return nil, fmt.Errorf("metadata %q: %w", key, err)
		}
		f.Metadata[key] = v
		f.Keys = append(f.Keys, key)
	}
	if a, ok := f.Metadata["general.alignment"]; ok {
		al, ok := asUint(a)
		if !ok || al == 0 || al&(al-1) != 0 || al > 1<<20 {
			return nil, fmt.Errorf("general.alignment %v is not a power of two", a)
		}
		f.Alignment = al
	}
	for i := 0; i < nTensors; i++ {
		t, err := d.tensor()
		if err != nil {
			return nil, err
		}
		if _, dup := f.byName[t.Name]; dup {
			return nil, fmt.Errorf("duplicate tensor %q", t.Name)
		}
		f.byName[t.Name] = len(f.Tensors)
		f.Tensors = append(f.Tensors, t)
	}
	pad := (f.Alignment - uint64(d.pos)%f.Alignment) % f.Alignment
	f.DataOffset = d.pos + int64(pad)
	return f, f.checkData()
}

func (d *decoder) tensor() (Tensor, error) {
	var t Tensor
	var err error
	if t.Name, err = d.str(); err != nil {
		return t, err
	}
	nd, err := d.u32()
	if err != nil {
		return t, err
	}
	if nd == 0 || nd > maxDims {
		return t, fmt.Errorf("tensor %q has %d dimensions (want 1 to %d)", t.Name, nd, maxDims)
	}
	elems := uint64(1)
	for j := uint32(0); j < nd; j++ {
		dim, err := d.u64()
		if err != nil {
			return t, err
		}
		if dim == 0 || dim > math.MaxInt64/elems {
			return t, fmt.Errorf("tensor %q has an invalid dimension %d", t.Name, dim)
		}
		elems *= dim
		t.Shape = append(t.Shape, dim)
	}
	tt, err := d.u32()
	if err != nil {
		return t, err
	}
	t.Type = Type(tt)
	if t.Offset, err = d.u64(); err != nil {
		return t, err
	}
	if !t.Type.Known() {
		return t, fmt.Errorf("tensor %q has unsupported type %s", t.Name, t.Type)
	}
	row, err := t.Type.rowBytes(t.Shape[0])
	if err != nil {
		return t, fmt.Errorf("tensor %q: %w", t.Name, err)
	}
	if rows := elems / t.Shape[0]; row > 0 && rows > math.MaxInt64/row {
		return t, fmt.Errorf("tensor %q is too large", t.Name)
	}
	t.Bytes, err = t.size()
	return t, err
}

// checkData verifies that every tensor is aligned and lies inside the file.
func (f *File) checkData() error {
	if f.DataOffset > f.Size && len(f.Tensors) > 0 {
		return fmt.Errorf("truncated file: tensor data would start at byte %d but the file has %d", f.DataOffset, f.Size)
	}
	avail := uint64(0)
	if f.Size > f.DataOffset {
		avail = uint64(f.Size - f.DataOffset)
	}
	byOffset := make([]Tensor, len(f.Tensors))
	copy(byOffset, f.Tensors)
	sort.Slice(byOffset, func(i, j int) bool { return byOffset[i].Offset < byOffset[j].Offset })
	for i, t := range byOffset {
		if i > 0 {
			if prev := byOffset[i-1]; prev.Offset+prev.Bytes > t.Offset {
				return fmt.Errorf("tensor %q (%s, shape %v, %d bytes) overlaps tensor %q at data offset %d: its shape disagrees with the data layout",
					prev.Name, prev.Type, prev.Shape, prev.Bytes, t.Name, t.Offset)
			}
		}
		if t.Offset%f.Alignment != 0 {
			return fmt.Errorf("tensor %q: data offset %d is not aligned to %d", t.Name, t.Offset, f.Alignment)
		}
		if t.Offset > avail || t.Bytes > avail-t.Offset {
			return fmt.Errorf("truncated file: tensor %q (%s, shape %v) needs bytes %d..%d of the data section but it has %d",
				t.Name, t.Type, t.Shape, t.Offset, t.Offset+t.Bytes, avail)
		}
	}
	return nil
}
