package engine

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// kvMagic starts a saved KV (WriteTo), version 1.
const kvMagic = "ACTORKV1"

// kvHeader describes a saved KV: what its bytes depend on and its tokens.
type kvHeader struct {
	Layers, KVHeads, HeadDim, From, N int32
}

// WriteTo writes kv (its tokens, the position they were computed at, and
// their keys and values) for ReadKV.
func (kv *KV) WriteTo(w io.Writer) (int64, error) {
	if kv.cache == nil {
		return 0, errors.New("engine: write of closed saved keys and values")
	}
	cw := &countWriter{w: bufio.NewWriter(w)}
	p := kv.cache.Params()
	h := kvHeader{int32(p.Layers), int32(p.KVHeads), int32(p.HeadDim), int32(kv.from), int32(len(kv.tokens))}
	layout := kv.cache.Layout()
	cw.Write([]byte(kvMagic))
	binary.Write(cw, binary.LittleEndian, h)
	binary.Write(cw, binary.LittleEndian, uint8(len(layout)))
	cw.Write([]byte(layout))
	binary.Write(cw, binary.LittleEndian, kv.tokens)
	if err := kv.cache.Dump(cw); err != nil {
		return cw.n, fmt.Errorf("engine: %w", err)
	}
	return cw.n, cw.w.(*bufio.Writer).Flush()
}

// ReadKV reads keys and values written by KV.WriteTo from a session of a
// model loaded from the same file with the same options; one of another
// model shape or cache layout, or a truncated one, is an error. (The
// caller keeps files of different model files apart.)
func (m *Model) ReadKV(r io.Reader) (*KV, error) {
	br := bufio.NewReader(r)
	magic := make([]byte, len(kvMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != kvMagic {
		return nil, errors.New("engine: not saved keys and values (bad magic)")
	}
	var h kvHeader
	if err := binary.Read(br, binary.LittleEndian, &h); err != nil {
		return nil, fmt.Errorf("engine: saved keys and values: %w", err)
	}
	p := m.net.Params()
	if int(h.Layers) != p.Layers || int(h.KVHeads) != p.KVHeads || int(h.HeadDim) != p.HeadDim {
		return nil, fmt.Errorf("engine: saved keys and values of another model shape (%d layers, %d×%d)", h.Layers, h.KVHeads, h.HeadDim)
	}
	var n uint8
	if err := binary.Read(br, binary.LittleEndian, &n); err != nil {
		return nil, fmt.Errorf("engine: saved keys and values: %w", err)
	}
	layout := make([]byte, n)
	if _, err := io.ReadFull(br, layout); err != nil {
		return nil, fmt.Errorf("engine: saved keys and values: %w", err)
	}
	if h.N < 1 || h.From < 0 || int(h.From)+int(h.N) > m.opts.ContextLength {
		return nil, fmt.Errorf("engine: saved keys and values of %d tokens at %d do not fit the model's context", h.N, h.From)
	}
	tokens := make([]int32, h.N)
	if err := binary.Read(br, binary.LittleEndian, tokens); err != nil {
		return nil, fmt.Errorf("engine: saved keys and values: tokens: %w", err)
	}
	c, err := m.net.NewCache(int(h.N), m.cacheType())
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	if c.Layout() != string(layout) {
		c.Close()
		return nil, fmt.Errorf("engine: saved keys and values in layout %s, this model's sessions use %s", layout, c.Layout())
	}
	if err := c.Load(br); err != nil {
		c.Close()
		return nil, fmt.Errorf("engine: %w", err)
	}
	return &KV{tokens: slices.Clone(tokens), from: int(h.From), cache: c}, nil
}

// KVLayout names what the bytes of the model's saved keys and values
// depend on besides its file (see KV.WriteTo).
func (m *Model) KVLayout() string { return m.net.CacheLayout(m.cacheType()) }

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
