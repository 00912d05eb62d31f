package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

// The fixture was written by the reference library (testdata/make_fixture.py);
// fixture.json holds the expected values as float32 bit patterns.
func TestReadFixture(t *testing.T) {
	f, err := Open("testdata/fixture.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := os.ReadFile("testdata/fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Metadata map[string]string
		Tensors  map[string]struct {
			DType  DType
			Shape  []int64
			Values []uint64
		}
	}
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Metadata, want.Metadata) {
		t.Errorf("metadata %v, want %v", f.Metadata, want.Metadata)
	}
	if len(f.Tensors) != len(want.Tensors) {
		t.Fatalf("%d tensors, want %d", len(f.Tensors), len(want.Tensors))
	}
	for name, w := range want.Tensors {
		tensor, ok := f.Tensor(name)
		if !ok {
			t.Fatalf("tensor %q missing", name)
		}
		if tensor.DType != w.DType || !reflect.DeepEqual(append([]int64{}, tensor.Shape...), append([]int64{}, w.Shape...)) {
			t.Errorf("%s: %s %v, want %s %v", name, tensor.DType, tensor.Shape, w.DType, w.Shape)
		}
		if tensor.DType == "I64" {
			raw, err := f.Raw(tensor)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range w.Values {
				if got := binary.LittleEndian.Uint64(raw[8*i:]); got != v {
					t.Errorf("%s[%d] = %d, want %d", name, i, got, v)
				}
			}
			continue
		}
		got, err := f.Float32(tensor)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(got)) != tensor.Elements() || len(got) != len(w.Values) {
			t.Fatalf("%s: %d values, want %d", name, len(got), len(w.Values))
		}
		for i, v := range w.Values {
			if math.Float32bits(got[i]) != uint32(v) {
				t.Errorf("%s[%d] = %v, want %v", name, i, got[i], math.Float32frombits(uint32(v)))
			}
		}
	}
	if _, ok := f.Tensor("nope"); ok {
		t.Error("unknown tensor found")
	}
	pos, _ := f.Tensor("position_ids")
	if _, err := f.Float32(pos); err == nil {
		t.Error("integer tensor read as float")
	}
}

func TestHalfToFloat32(t *testing.T) {
	cases := map[uint16]float32{
		0x0000: 0, 0x3c00: 1, 0xc000: -2, 0x7bff: 65504, 0x0400: 6.103515625e-05,
		0x0001: 5.960464477539063e-08, 0x03ff: 6.097555160522461e-05, 0x3555: 0.333251953125,
	}
	for h, want := range cases {
		if got := halfToFloat32(h); got != want {
			t.Errorf("half %#04x = %v, want %v", h, got, want)
		}
	}
	if !math.IsInf(float64(halfToFloat32(0xfc00)), -1) || !math.IsNaN(float64(halfToFloat32(0x7e00))) {
		t.Error("infinity or NaN")
	}
	if math.Float32bits(halfToFloat32(0x8000)) != 0x80000000 {
		t.Error("negative zero")
	}
}

// build makes a safetensors image from a header and a data section.
func build(header string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint64(len(header)))
	b.WriteString(header)
	b.Write(data)
	return b.Bytes()
}

func TestParseErrors(t *testing.T) {
	ok := `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`
	if _, err := Parse("ok", bytes.NewReader(build(ok+"  ", make([]byte, 8))), int64(len(build(ok+"  ", make([]byte, 8))))); err != nil {
		t.Fatalf("valid padded file rejected: %v", err)
	}
	bad := map[string][]byte{
		"short":        {1, 2, 3},
		"huge header":  append(binary.LittleEndian.AppendUint64(nil, MaxHeaderSize+1), '{'),
		"past end":     append(binary.LittleEndian.AppendUint64(nil, 100), '{', '}'),
		"not object":   build(`[1]`, nil),
		"bad json":     build(`{"a":`, nil),
		"trailing":     build(`{} x`, nil),
		"duplicate":    build(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, make([]byte, 2)),
		"dtype":        build(`{"a":{"dtype":"F33","shape":[1],"data_offsets":[0,4]}}`, make([]byte, 4)),
		"missing":      build(`{"a":{"dtype":"F32","data_offsets":[0,4]}}`, make([]byte, 4)),
		"offsets":      build(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4,8]}}`, make([]byte, 4)),
		"size":         build(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}`, make([]byte, 4)),
		"negative dim": build(`{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}}`, nil),
		"overflow":     build(`{"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,0]}}`, nil),
		"gap":          build(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, make([]byte, 2)),
		"overlap":      build(`{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}}`, make([]byte, 3)),
		"leftover":     build(ok, make([]byte, 9)),
		"missing data": build(ok, make([]byte, 7)),
		"metadata":     build(`{"__metadata__":{"a":1}}`, nil),
		"half bytes":   build(`{"a":{"dtype":"F4","shape":[3],"data_offsets":[0,1]}}`, make([]byte, 1)),
	}
	for name, img := range bad {
		_, err := Parse("x.safetensors", bytes.NewReader(img), int64(len(img)))
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if !strings.HasPrefix(err.Error(), "safetensors: x.safetensors: ") {
			t.Errorf("%s: error %q does not name the file", name, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	fixture, err := os.ReadFile("testdata/fixture.safetensors")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(fixture)
	f.Add(build(`{"a":{"dtype":"BF16","shape":[1,2],"data_offsets":[0,4]}}`, make([]byte, 4)))
	f.Add(build(`{}`, nil))
	f.Fuzz(func(t *testing.T, img []byte) {
		file, err := Parse("fuzz", bytes.NewReader(img), int64(len(img)))
		if err != nil {
			return
		}
		for _, tensor := range file.Tensors {
			if tensor.Offset < 8 || tensor.Offset+tensor.Size > int64(len(img)) {
				t.Fatalf("tensor %+v outside the %d-byte image", tensor, len(img))
			}
			if _, err := file.Raw(tensor); err != nil {
				t.Fatal(err)
			}
			switch tensor.DType {
			case "F32", "F16", "BF16", "F64":
				if _, err := file.Float32(tensor); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
