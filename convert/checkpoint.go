package convert

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"actor/safetensors"
)

// checkpoint is an open Hugging Face model folder: its config.json and the
// tensors of every safetensors shard, looked up by name.
type checkpoint struct {
	dir    string
	config map[string]any
	files  []*safetensors.File
	where  map[string]int // tensor name → index into files
	used   map[string]bool
}

// openCheckpoint reads config.json and the safetensors weights of dir: the
// shards listed by model.safetensors.index.json when present, otherwise
// every *.safetensors file of the folder.
func openCheckpoint(dir string) (_ *checkpoint, err error) {
	c := &checkpoint{dir: dir, where: map[string]int{}, used: map[string]bool{}}
	raw, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no config.json: not a Hugging Face model folder", dir)
		}
		return nil, err
	}
	if err := json.Unmarshal(raw, &c.config); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, "config.json"), err)
	}
	names, err := shardNames(dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			c.close()
		}
	}()
	for _, name := range names {
		f, err := safetensors.Open(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		c.files = append(c.files, f)
		for _, t := range f.Tensors {
			if prev, dup := c.where[t.Name]; dup {
				return nil, fmt.Errorf("%s: tensor %s is in both %s and %s", dir, t.Name, filepath.Base(c.files[prev].Path), name)
			}
			c.where[t.Name] = len(c.files) - 1
		}
	}
	return c, nil
}

// shardNames lists the safetensors files that hold the weights of dir.
func shardNames(dir string) ([]string, error) {
	idx := filepath.Join(dir, "model.safetensors.index.json")
	raw, err := os.ReadFile(idx)
	switch {
	case err == nil:
		var index struct {
			WeightMap map[string]string `json:"weight_map"`
		}
		if err := json.Unmarshal(raw, &index); err != nil {
			return nil, fmt.Errorf("%s: %v", idx, err)
		}
		var names []string
		for _, f := range index.WeightMap {
			if f != filepath.Base(f) || !strings.HasSuffix(f, ".safetensors") {
				return nil, fmt.Errorf("%s: weight_map names %q, not a safetensors file of the folder", idx, f)
			}
			if !slices.Contains(names, f) {
				names = append(names, f)
			}
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("%s: empty weight_map", idx)
		}
		slices.Sort(names)
		return names, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	names, err := filepath.Glob(filepath.Join(dir, "*.safetensors"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		hint := ""
		if bins, _ := filepath.Glob(filepath.Join(dir, "*.bin")); len(bins) > 0 {
			hint = " (PyTorch .bin weights are not read: save the model with safe_serialization=True)"
		}
		return nil, fmt.Errorf("%s: no *.safetensors weights%s", dir, hint)
	}
	for i, n := range names {
		names[i] = filepath.Base(n)
	}
	slices.Sort(names)
	return names, nil
}

func (c *checkpoint) close() {
	for _, f := range c.files {
		f.Close()
	}
}

// has reports whether the checkpoint holds the named tensor.
func (c *checkpoint) has(name string) bool {
	_, ok := c.where[name]
	return ok
}

// tensor reads a floating-point tensor as float32 (F32, F16, BF16 or F64
// in the file) with its shape, and marks it used.
func (c *checkpoint) tensor(name string) ([]float32, []int64, error) {
	i, ok := c.where[name]
	if !ok {
		return nil, nil, fmt.Errorf("%s: tensor %s is missing", c.dir, name)
	}
	f := c.files[i]
	t, _ := f.Tensor(name)
	switch t.DType {
	case "F32", "F16", "BF16", "F64":
	default:
		return nil, nil, fmt.Errorf("%s: tensor %s has dtype %s (supported: F32, F16, BF16)", f.Path, name, t.DType)
	}
	data, err := f.Float32(t)
	if err != nil {
		return nil, nil, err
	}
	c.used[name] = true
	return data, t.Shape, nil
}

// unused returns the names of tensors never read, except those matching
// one of the ignored suffixes (buffers such as position_ids).
func (c *checkpoint) unused(ignored ...string) []string {
	var out []string
	for name := range c.where {
		if c.used[name] {
			continue
		}
		if slices.ContainsFunc(ignored, func(s string) bool { return strings.HasSuffix(name, s) }) {
			continue
		}
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// architecture returns config.json's architectures[0] (or model_type when
// that list is absent).
func (c *checkpoint) architecture() string {
	if a, ok := c.config["architectures"].([]any); ok && len(a) > 0 {
		if s, ok := a[0].(string); ok {
			return s
		}
	}
	s, _ := c.config["model_type"].(string)
	return s
}

// cfg reads typed values from config.json and keeps the first error.
type cfg struct {
	m    map[string]any
	path string
	err  error
}

func (c *checkpoint) cfg() *cfg { return &cfg{m: c.config, path: filepath.Join(c.dir, "config.json")} }

func (r *cfg) fail(format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%s: "+format, append([]any{r.path}, a...)...)
	}
}

// num reads a number; a missing key gives def, or an error when required.
func (r *cfg) num(key string, def float64, required bool) float64 {
	v, ok := r.m[key]
	if !ok || v == nil {
		if required {
			r.fail("%s is missing", key)
		}
		return def
	}
	f, ok := v.(float64)
	if !ok {
		r.fail("%s is %v, not a number", key, v)
		return def
	}
	return f
}

// int reads a positive integer below 2^31.
func (r *cfg) int(key string, def int, required bool) int {
	f := r.num(key, float64(def), required)
	if f != float64(int64(f)) || f < 0 || f >= 1<<31 {
		r.fail("%s is %v, not a non-negative integer", key, f)
		return def
	}
	return int(f)
}

// str reads a string; a missing key gives def.
func (r *cfg) str(key, def string) string {
	v, ok := r.m[key]
	if !ok || v == nil {
		return def
	}
	s, ok := v.(string)
	if !ok {
		r.fail("%s is %v, not a string", key, v)
		return def
	}
	return s
}

// bool reads a boolean; a missing key gives def.
func (r *cfg) bool(key string, def bool) bool {
	v, ok := r.m[key]
	if !ok || v == nil {
		return def
	}
	b, ok := v.(bool)
	if !ok {
		r.fail("%s is %v, not a boolean", key, v)
		return def
	}
	return b
}
