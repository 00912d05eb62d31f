package labelstore

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
)

// Set is a labels directory opened for reading: header, complete samples
// and their tokens in memory, hidden states read on demand.
type Set struct {
	Header  Header
	Samples []Sample
	Tokens  []Token // Tokens[r] has Row r
	dir     string
	hid     *os.File
}

// Open reads the labels directory dir. An incomplete tail left by an
// interrupted run is ignored with a warning through warn (nil: slog);
// missing, truncated or inconsistent files are errors naming the file.
func Open(dir string, warn func(string)) (*Set, error) {
	st, err := scan(dir)
	if err != nil {
		return nil, err
	}
	if t := st.tail(); t != "" {
		warnf(warn, "labels %s: ignoring the incomplete tail of an interrupted run (%s); %d complete samples read", dir, t, len(st.samples))
	}
	hp := filepath.Join(dir, HiddenFile)
	f, err := os.Open(hp)
	if err != nil {
		return nil, fmt.Errorf("labels file %s: %w", hp, err)
	}
	return &Set{Header: st.h, Samples: st.samples, Tokens: st.tokens, dir: dir, hid: f}, nil
}

// Hidden reads the hidden states of the given rows into dst, row after row
// (len(dst) must be len(rows)·d), converting float16 to float32.
func (s *Set) Hidden(rows []int64, dst []float32) error {
	d := s.Header.Model.Hidden
	if len(dst) != len(rows)*d {
		return fmt.Errorf("labels %s: %d rows need %d values, got a buffer of %d", s.dir, len(rows), len(rows)*d, len(dst))
	}
	buf := make([]byte, 2*d)
	for i, r := range rows {
		if r < 0 || r >= int64(len(s.Tokens)) {
			return fmt.Errorf("labels %s: row %d outside 0..%d", s.dir, r, len(s.Tokens)-1)
		}
		if _, err := s.hid.ReadAt(buf, hiddenHeader+r*int64(2*d)); err != nil {
			return fmt.Errorf("labels file %s: row %d: %w", filepath.Join(s.dir, HiddenFile), r, err)
		}
		out := dst[i*d : (i+1)*d]
		for k := range out {
			out[k] = fromHalf(binary.LittleEndian.Uint16(buf[2*k:]))
		}
	}
	return nil
}

// SampleOf returns the sample a token of the set belongs to (nil for a row
// outside the set).
func (s *Set) SampleOf(t Token) *Sample {
	lo, hi := 0, len(s.Samples)
	for lo < hi { // first sample whose rows end after t.Row
		m := (lo + hi) / 2
		if s.Samples[m].FirstRow+int64(s.Samples[m].Tokens) <= t.Row {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(s.Samples) || t.Row < 0 {
		return nil
	}
	return &s.Samples[lo]
}

// Dir returns the directory the set was read from.
func (s *Set) Dir() string { return s.dir }

// Close releases the hidden-state file.
func (s *Set) Close() error { return s.hid.Close() }
