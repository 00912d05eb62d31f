package probe

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"

	"actor/probe/critical"
)

// File layout, little-endian, version 1:
//
//	magic "ACTRPROB" | u32 version
//	str arch | u32 hidden | u32 units | u32 members | str tokenizer hash | str model name
//	f64 threshold | u32 enabled criteria | f64 entropy min | f64 influence min | u32 top-k | u32 window
//	str metrics JSON
//	members × (W1 units·d | B1 units | W2 2·units | B2 2), float32
//	u32 CRC-32 (IEEE) of every byte before it
//
// where str is a u32 byte length followed by the bytes.
const (
	fileMagic   = "ACTRPROB"
	fileVersion = 1
	maxString   = 1 << 20 // longest string field accepted
	maxHidden   = 1 << 16
	maxUnits    = 1 << 14
	maxMembers  = 64
)

// Save writes p to path atomically (a temporary file renamed into place).
func Save(path string, p *Probe) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("probe file %s: %w", path, err)
	}
	var b bytes.Buffer
	b.WriteString(fileMagic)
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) } // bytes.Buffer writes cannot fail
	str := func(s string) { w(uint32(len(s))); b.WriteString(s) }
	w(uint32(fileVersion))
	str(p.Model.Arch)
	w(uint32(p.Model.Hidden))
	w(uint32(p.Units))
	w(uint32(len(p.Members)))
	str(p.Model.TokenizerHash)
	str(p.Model.Name)
	w(p.Threshold)
	w(uint32(p.Rules.Enabled))
	w(p.Rules.EntropyMin)
	w(p.Rules.InfluenceMin)
	w(uint32(p.Rules.TopK))
	w(uint32(p.Rules.Window))
	str(string(p.Metrics))
	for _, m := range p.Members {
		for _, s := range [][]float32{m.W1, m.B1, m.W2, m.B2} {
			w(s)
		}
	}
	w(crc32.ChecksumIEEE(b.Bytes()))

	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("probe file %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp makes it 0600
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("probe file %s: %w", path, err)
	}
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("probe file %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("probe file %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("probe file %s: %w", path, err)
	}
	return nil
}

// Load reads a probe file. Use LoadFor when the model is known.
func Load(path string) (*Probe, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("probe file %s: %w", path, err)
	}
	p, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("probe file %s: %w", path, err)
	}
	return p, nil
}

// LoadFor reads a probe file and refuses it when it was trained for a model
// other than want (architecture, hidden size or tokenizer differ).
func LoadFor(path string, want ModelInfo) (*Probe, error) {
	p, err := Load(path)
	if err != nil {
		return nil, err
	}
	if err := p.Model.Check(want); err != nil {
		return nil, fmt.Errorf("probe file %s: %w", path, err)
	}
	return p, nil
}

// reader decodes fields from a byte slice, remembering the first error.
type reader struct {
	b   []byte
	off int
	err error
}

func (r *reader) take(n int, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || len(r.b)-r.off < n {
		r.err = fmt.Errorf("truncated at byte %d reading %s (%d bytes needed, %d left)", r.off, what, n, len(r.b)-r.off)
		return nil
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s
}

func (r *reader) u32(what string) uint32 {
	if s := r.take(4, what); s != nil {
		return binary.LittleEndian.Uint32(s)
	}
	return 0
}

func (r *reader) f64(what string) float64 {
	if s := r.take(8, what); s != nil {
		return math.Float64frombits(binary.LittleEndian.Uint64(s))
	}
	return 0
}

func (r *reader) str(what string) string {
	n := r.u32(what + " length")
	if r.err == nil && n > maxString {
		r.err = fmt.Errorf("%s length %d exceeds %d bytes (corrupt header)", what, n, maxString)
	}
	return string(r.take(int(n), what))
}

func (r *reader) floats(n int, what string) []float32 {
	s := r.take(4*n, what)
	if s == nil {
		return nil
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(s[4*i:]))
	}
	return out
}

// Decode parses the bytes of a probe file (see the layout above).
func Decode(data []byte) (*Probe, error) {
	if len(data) < len(fileMagic)+4 || string(data[:len(fileMagic)]) != fileMagic {
		return nil, errors.New("not a probe file (bad magic)")
	}
	r := &reader{b: data, off: len(fileMagic)}
	if v := r.u32("version"); v != fileVersion {
		return nil, fmt.Errorf("format version %d not supported (this build reads %d)", v, fileVersion)
	}
	p := &Probe{}
	p.Model.Arch = r.str("architecture")
	hidden, units, members := r.u32("hidden size"), r.u32("units"), r.u32("members")
	p.Model.TokenizerHash = r.str("tokenizer hash")
	p.Model.Name = r.str("model name")
	p.Threshold = r.f64("threshold")
	p.Rules = critical.Rules{Enabled: critical.Flags(r.u32("criteria"))}
	p.Rules.EntropyMin = r.f64("entropy threshold")
	p.Rules.InfluenceMin = r.f64("influence threshold")
	p.Rules.TopK = int(r.u32("top-k"))
	p.Rules.Window = int(r.u32("window"))
	metrics := r.str("metrics")
	if r.err != nil {
		return nil, r.err
	}
	switch {
	case hidden < 1 || hidden > maxHidden:
		return nil, fmt.Errorf("hidden size %d outside 1..%d (corrupt header)", hidden, maxHidden)
	case units < 1 || units > maxUnits:
		return nil, fmt.Errorf("units %d outside 1..%d (corrupt header)", units, maxUnits)
	case members < 1 || members > maxMembers:
		return nil, fmt.Errorf("members %d outside 1..%d (corrupt header)", members, maxMembers)
	}
	p.Model.Hidden, p.Units = int(hidden), int(units)
	if len(metrics) > 0 {
		p.Metrics = []byte(metrics)
	}
	d, u := int(hidden), int(units)
	per := u*d + u + Classes*u + Classes
	if need, left := 4*per*int(members)+4, len(data)-r.off; left != need {
		if left < need {
			return nil, fmt.Errorf("truncated: the weights of %d members need %d bytes, %d left", members, need, left)
		}
		return nil, fmt.Errorf("%d unexpected bytes after the weights", left-need)
	}
	body := len(data) - 4
	if got, want := crc32.ChecksumIEEE(data[:body]), binary.LittleEndian.Uint32(data[body:]); got != want {
		return nil, fmt.Errorf("checksum mismatch (stored %08x, computed %08x): the file is corrupt", want, got)
	}
	p.Members = make([]Member, members)
	for i := range p.Members {
		m := &p.Members[i]
		m.W1 = r.floats(u*d, "W1")
		m.B1 = r.floats(u, "B1")
		m.W2 = r.floats(Classes*u, "W2")
		m.B2 = r.floats(Classes, "B2")
	}
	if r.err != nil {
		return nil, r.err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if len(p.Metrics) > 0 && !json.Valid(p.Metrics) {
		return nil, errors.New("metrics are not valid JSON (corrupt)")
	}
	return p, nil
}
