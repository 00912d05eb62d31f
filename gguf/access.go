package gguf

import (
	"fmt"
	"math"
)

// Architecture returns general.architecture ("llama", "qwen2", …), or ""
// when the file does not declare one.
func (f *File) Architecture() string {
	s, _ := f.Metadata["general.architecture"].(string)
	return s
}

// Has reports whether the metadata holds key.
func (f *File) Has(key string) bool {
	_, ok := f.Metadata[key]
	return ok
}

// Tensor returns the directory entry of the named tensor.
func (f *File) Tensor(name string) (Tensor, bool) {
	i, ok := f.byName[name]
	if !ok {
		return Tensor{}, false
	}
	return f.Tensors[i], true
}

func (f *File) get(key string) (any, error) {
	v, ok := f.Metadata[key]
	if !ok {
		return nil, &Error{f.Path, fmt.Sprintf("metadata key %q is missing", key)}
	}
	return v, nil
}

func (f *File) wrongType(key string, v any, want string) error {
	return &Error{f.Path, fmt.Sprintf("metadata key %q is %T, want %s", key, v, want)}
}

// String returns a string value.
func (f *File) String(key string) (string, error) {
	v, err := f.get(key)
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", f.wrongType(key, v, "string")
	}
	return s, nil
}

// Uint returns a non-negative integer value of any integer width.
func (f *File) Uint(key string) (uint64, error) {
	v, err := f.get(key)
	if err != nil {
		return 0, err
	}
	u, ok := asUint(v)
	if !ok {
		return 0, f.wrongType(key, v, "a non-negative integer")
	}
	return u, nil
}

// Float returns a float value; integer values are converted.
func (f *File) Float(key string) (float64, error) {
	v, err := f.get(key)
	if err != nil {
		return 0, err
	}
	switch x := v.(type) {
	case float32:
		return float64(x), nil
	case float64:
		return x, nil
	}
	if u, ok := asUint(v); ok {
		return float64(u), nil
	}
	return 0, f.wrongType(key, v, "a number")
}

// Bool returns a bool value.
func (f *File) Bool(key string) (bool, error) {
	v, err := f.get(key)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, f.wrongType(key, v, "bool")
	}
	return b, nil
}

// Strings returns a string array value.
func (f *File) Strings(key string) ([]string, error) {
	v, err := f.get(key)
	if err != nil {
		return nil, err
	}
	s, ok := v.([]string)
	if !ok {
		return nil, f.wrongType(key, v, "an array of strings")
	}
	return s, nil
}

// Int32s returns an integer array value as int32s (any integer element
// type whose values fit).
func (f *File) Int32s(key string) ([]int32, error) {
	v, err := f.get(key)
	if err != nil {
		return nil, err
	}
	if s, ok := v.([]int32); ok {
		return s, nil
	}
	var out []int32
	conv := func(n int, at func(int) (int64, bool)) bool {
		out = make([]int32, n)
		for i := range out {
			x, ok := at(i)
			if !ok || x < math.MinInt32 || x > math.MaxInt32 {
				return false
			}
			out[i] = int32(x)
		}
		return true
	}
	ok := false
	switch s := v.(type) {
	case []uint32:
		ok = conv(len(s), func(i int) (int64, bool) { return int64(s[i]), true })
	case []int64:
		ok = conv(len(s), func(i int) (int64, bool) { return s[i], true })
	case []uint64:
		ok = conv(len(s), func(i int) (int64, bool) { return int64(s[i]), s[i] <= math.MaxInt64 })
	case []int16:
		ok = conv(len(s), func(i int) (int64, bool) { return int64(s[i]), true })
	case []uint16:
		ok = conv(len(s), func(i int) (int64, bool) { return int64(s[i]), true })
	case []int8:
		ok = conv(len(s), func(i int) (int64, bool) { return int64(s[i]), true })
	case []uint8:
		ok = conv(len(s), func(i int) (int64, bool) { return int64(s[i]), true })
	}
	if !ok {
		return nil, f.wrongType(key, v, "an array of 32-bit integers")
	}
	return out, nil
}

// Float32s returns a float array value as float32s.
func (f *File) Float32s(key string) ([]float32, error) {
	v, err := f.get(key)
	if err != nil {
		return nil, err
	}
	switch s := v.(type) {
	case []float32:
		return s, nil
	case []float64:
		out := make([]float32, len(s))
		for i, x := range s {
			out[i] = float32(x)
		}
		return out, nil
	}
	return nil, f.wrongType(key, v, "an array of floats")
}

func asUint(v any) (uint64, bool) {
	switch x := v.(type) {
	case uint8:
		return uint64(x), true
	case uint16:
		return uint64(x), true
	case uint32:
		return uint64(x), true
	case uint64:
		return x, true
	case int8:
		return uint64(x), x >= 0
	case int16:
		return uint64(x), x >= 0
	case int32:
		return uint64(x), x >= 0
	case int64:
		return uint64(x), x >= 0
	}
	return 0, false
}
