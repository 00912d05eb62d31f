package ggml

import (
	"fmt"
	"io"

	"github.com/ollama/ollama/ml"
)

// CacheType is the element type of a KV cache.
type CacheType int

const (
	// CacheF16 stores keys and values as float16, as llama.cpp does by
	// default: half the memory, logits differ from F32 by about 1e-3.
	CacheF16 CacheType = iota
	// CacheF32 stores keys and values exactly.
	CacheF32
)

// String names the type ("f16", "f32").
func (t CacheType) String() string {
	if t == CacheF32 {
		return "f32"
	}
	return "f16"
}

func (t CacheType) dtype() ml.DType {
	if t == CacheF32 {
		return ml.DTypeF32
	}
	return ml.DTypeF16
}

// Cache holds the keys and values of every layer for up to Size positions.
// Position i lives in slot i: a forward batch at Start overwrites the slots
// from Start on, so truncating a sequence needs no work here.
//
// Keys are stored [headDim, kvHeads, size]. Values are stored the same way
// for flash attention, otherwise transposed as [size, headDim, kvHeads], so
// attention reads both as strided views without a per-step copy.
type Cache struct {
	m    *Model
	ctx  ml.Context
	k, v []ml.Tensor
	size int
	typ  CacheType
}

// NewCache allocates a zeroed cache for size positions (attention reads
// whole padded blocks of positions; never-written ones must be finite).
func (m *Model) NewCache(size int, typ CacheType) (c *Cache, err error) {
	defer recoverErr(&err, "allocate KV cache")
	if size < 1 {
		return nil, fmt.Errorf("KV cache size %d must be positive", size)
	}
	p := m.p
	c = &Cache{m: m, ctx: m.b.NewContextSize(2 * p.Layers), size: size, typ: typ}
	for l := range p.Layers {
		lc := c.ctx.Layer(l)
		c.k = append(c.k, lc.Zeros(typ.dtype(), p.HeadDim, p.KVHeads, size))
		if m.o.FlashAttention {
			c.v = append(c.v, lc.Zeros(typ.dtype(), p.HeadDim, p.KVHeads, size))
		} else {
			c.v = append(c.v, lc.Zeros(typ.dtype(), size, p.HeadDim, p.KVHeads))
		}
	}
	return c, nil
}

// Size is the number of positions the cache holds.
func (c *Cache) Size() int { return c.size }

// Params are the hyper-parameters of the cache's model.
func (c *Cache) Params() Params { return c.m.p }

// Type is the element type of the cache.
func (c *Cache) Type() CacheType { return c.typ }

// Bytes is the memory the cache takes when full.
func (c *Cache) Bytes() int64 {
	p := c.m.p
	el := int64(4)
	if c.typ == CacheF16 {
		el = 2
	}
	return 2 * int64(p.Layers) * int64(p.KVHeads*p.HeadDim) * int64(c.size) * el
}

// Close frees the cache.
func (c *Cache) Close() {
	if c.ctx != nil {
		c.ctx.Close()
		c.ctx = nil
	}
}

// tensorBytes is the size of one layer's keys (or values).
func (c *Cache) tensorBytes() int { return int(c.Bytes() / int64(2*c.m.p.Layers)) }

// Dump writes the cache's keys and values, layer by layer (keys, then
// values), in their memory layout.
func (c *Cache) Dump(w io.Writer) (err error) {
	if c.ctx == nil {
		return fmt.Errorf("dump of a closed KV cache")
	}
	defer recoverErr(&err, "dump KV cache")
	buf := make([]byte, c.tensorBytes())
	for l := range c.k {
		for _, t := range []ml.Tensor{c.k[l], c.v[l]} {
			if err := tensorRead(t, buf); err != nil {
				return err
			}
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
	}
	return nil
}

// Load reads into the cache what Dump wrote from a cache of the same
// model, size and type.
func (c *Cache) Load(r io.Reader) (err error) {
	if c.ctx == nil {
		return fmt.Errorf("load into a closed KV cache")
	}
	defer recoverErr(&err, "load KV cache")
	buf := make([]byte, c.tensorBytes())
	for l := range c.k {
		for _, t := range []ml.Tensor{c.k[l], c.v[l]} {
			if _, err := io.ReadFull(r, buf); err != nil {
				return fmt.Errorf("KV cache data: %w", err)
			}
			if err := tensorWrite(t, buf); err != nil {
				return err
			}
		}
	}
	return nil
}

// Layout names what the cache's bytes depend on besides the model: the
// element type and whether values are stored transposed (without flash
// attention).
func (c *Cache) Layout() string { return c.m.CacheLayout(c.typ) }

// CacheLayout is Cache.Layout of the model's caches of this type.
func (m *Model) CacheLayout(typ CacheType) string {
	return fmt.Sprintf("%s-vt%v", typ, !m.o.FlashAttention)
}
