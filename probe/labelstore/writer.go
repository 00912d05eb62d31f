package labelstore

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Writer appends labelled samples to a labels directory.
type Writer struct {
	dir              string
	h                Header
	hid, tok, smp    *os.File
	hidW, tokW, smpW *bufio.Writer
	rows             int64
	samples          int
	done             map[string]bool
	err              error // sticky: a failed Add leaves the files unusable
	buf              []byte
}

// OpenWriter creates the labels directory dir for h, or reopens an existing
// one made with an identical header to resume it: anything after the last
// complete sample is cut off, with a warning through warn (nil: slog).
func OpenWriter(dir string, h Header, warn func(string)) (*Writer, error) {
	if err := h.validate(); err != nil {
		return nil, fmt.Errorf("labels %s: %w", dir, err)
	}
	w := &Writer{dir: dir, h: h, done: map[string]bool{}}
	if _, err := os.Stat(filepath.Join(dir, HeaderFile)); errors.Is(err, os.ErrNotExist) {
		if err := w.create(); err != nil {
			return nil, err
		}
	} else if err := w.resume(warn); err != nil {
		return nil, err
	}
	w.hidW = bufio.NewWriterSize(w.hid, 1<<20)
	w.tokW = bufio.NewWriterSize(w.tok, 1<<16)
	w.smpW = bufio.NewWriter(w.smp)
	return w, nil
}

// create makes a fresh directory: header and empty data files.
func (w *Writer) create() error {
	if err := os.MkdirAll(w.dir, 0o755); err != nil {
		return fmt.Errorf("labels %s: %w", w.dir, err)
	}
	// A directory without a header may hold only the empty files of a
	// creation that was interrupted; anything more is someone's data.
	for _, name := range []string{HiddenFile, TokensFile, SamplesFile} {
		if fi, err := os.Stat(filepath.Join(w.dir, name)); err == nil && fi.Size() > hiddenHeader {
			return fmt.Errorf("labels %s: %s exists without %s; refusing to overwrite", w.dir, name, HeaderFile)
		}
	}
	for name, content := range map[string][]byte{HiddenFile: hiddenHeaderBytes(w.h.Model.Hidden), TokensFile: nil, SamplesFile: nil} {
		if err := os.WriteFile(filepath.Join(w.dir, name), content, 0o644); err != nil {
			return fmt.Errorf("labels %s: %w", w.dir, err)
		}
	}
	hb, err := json.MarshalIndent(w.h, "", "  ")
	if err != nil {
		return fmt.Errorf("labels %s: %w", w.dir, err)
	}
	// The header goes last: its presence means the directory is complete.
	// It is written aside and renamed into place, so that a kill during
	// the write leaves no torn header (which would block every resume).
	tmp := filepath.Join(w.dir, HeaderFile+".tmp")
	if err := os.WriteFile(tmp, append(hb, '\n'), 0o644); err != nil {
		return fmt.Errorf("labels %s: %w", w.dir, err)
	}
	if err := os.Rename(tmp, filepath.Join(w.dir, HeaderFile)); err != nil {
		return fmt.Errorf("labels %s: %w", w.dir, err)
	}
	return w.openFiles()
}

// resume checks the stored header, cuts an incomplete tail and positions
// the writer after the last complete sample.
func (w *Writer) resume(warn func(string)) error {
	old, err := readHeader(w.dir)
	if err != nil {
		return err
	}
	if old != w.h {
		a, _ := json.Marshal(old)
		b, _ := json.Marshal(w.h)
		return fmt.Errorf("labels %s were made with another setting (%s), not (%s): use a new directory", w.dir, a, b)
	}
	st, err := scan(w.dir)
	if err != nil {
		return err
	}
	if t := st.tail(); t != "" {
		warnf(warn, "labels %s: cutting the incomplete tail of an interrupted run (%s); %d complete samples kept", w.dir, t, len(st.samples))
		for _, c := range []struct {
			name string
			size int64
		}{{SamplesFile, st.samplesEnd}, {TokensFile, st.tokensEnd}, {HiddenFile, st.hiddenEnd}} {
			if err := os.Truncate(filepath.Join(w.dir, c.name), c.size); err != nil {
				return fmt.Errorf("labels %s: %w", w.dir, err)
			}
		}
	}
	for _, s := range st.samples {
		w.done[s.ID] = true
	}
	w.samples = len(st.samples)
	w.rows = int64(len(st.tokens))
	return w.openFiles()
}

func (w *Writer) openFiles() error {
	open := func(name string) (*os.File, error) {
		f, err := os.OpenFile(filepath.Join(w.dir, name), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return nil, fmt.Errorf("labels %s: %w", w.dir, err)
		}
		return f, nil
	}
	var err error
	if w.hid, err = open(HiddenFile); err != nil {
		return err
	}
	if w.tok, err = open(TokensFile); err == nil {
		w.smp, err = open(SamplesFile)
	}
	if err != nil {
		w.closeFiles()
	}
	return err
}

func (w *Writer) closeFiles() {
	for _, f := range []*os.File{w.hid, w.tok, w.smp} {
		if f != nil {
			f.Close()
		}
	}
}

// Done reports whether a sample with this id is already stored.
func (w *Writer) Done(id string) bool { return w.done[id] }

// Count returns the stored samples and tokens.
func (w *Writer) Count() (samples int, tokens int64) { return w.samples, w.rows }

// Add stores one sample: its tokens (in target order, Pos 0..n-1) and one
// hidden state of the header's size per token. Row, FirstRow, Tokens and
// each token's Sample are filled in here.
func (w *Writer) Add(s Sample, toks []Token, hidden [][]float32) error {
	if w.err != nil {
		return fmt.Errorf("labels %s: an earlier write failed: %w", w.dir, w.err)
	}
	d := w.h.Model.Hidden
	switch {
	case s.ID == "":
		return fmt.Errorf("labels %s: sample without an id", w.dir)
	case w.done[s.ID]:
		return fmt.Errorf("labels %s: sample %q already stored", w.dir, s.ID)
	case len(toks) == 0:
		return fmt.Errorf("labels %s: sample %q has no tokens", w.dir, s.ID)
	case len(toks) != len(hidden):
		return fmt.Errorf("labels %s: sample %q has %d tokens but %d hidden states", w.dir, s.ID, len(toks), len(hidden))
	}
	for i, h := range hidden {
		if len(h) != d {
			return fmt.Errorf("labels %s: sample %q token %d: hidden state of %d values, want %d", w.dir, s.ID, i, len(h), d)
		}
		for k, v := range h {
			if !(v >= -maxHalf && v <= maxHalf) {
				return fmt.Errorf("labels %s: sample %q token %d: hidden value %d is %v, outside float16's range", w.dir, s.ID, i, k, v)
			}
		}
		t := &toks[i]
		if t.Pos != i {
			return fmt.Errorf("labels %s: sample %q token %d has position %d", w.dir, s.ID, i, t.Pos)
		}
		if !(t.Start == -1 && t.End == -1) && (t.Start < 0 || t.Start > t.End || t.End > len(s.Target)) {
			return fmt.Errorf("labels %s: sample %q token %d: span %d..%d outside the target", w.dir, s.ID, i, t.Start, t.End)
		}
	}
	s.Tokens, s.FirstRow = len(toks), w.rows
	w.err = w.write(s, toks, hidden)
	if w.err != nil {
		return fmt.Errorf("labels %s: %w", w.dir, w.err)
	}
	w.done[s.ID] = true
	w.samples++
	w.rows += int64(len(toks))
	return nil
}

// write appends hidden rows, then token lines, then the sample line, each
// flushed before the next so that the sample line commits the sample.
func (w *Writer) write(s Sample, toks []Token, hidden [][]float32) error {
	for _, h := range hidden {
		w.buf = w.buf[:0]
		for _, v := range h {
			w.buf = binary.LittleEndian.AppendUint16(w.buf, toHalf(v))
		}
		if _, err := w.hidW.Write(w.buf); err != nil {
			return err
		}
	}
	if err := w.hidW.Flush(); err != nil {
		return err
	}
	for i := range toks {
		t := toks[i]
		t.Sample, t.Row = s.ID, s.FirstRow+int64(i)
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		if _, err := w.tokW.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	if err := w.tokW.Flush(); err != nil {
		return err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if _, err := w.smpW.Write(append(b, '\n')); err != nil {
		return err
	}
	return w.smpW.Flush()
}

// Close syncs and closes the files.
func (w *Writer) Close() error {
	var first error
	for _, f := range []*os.File{w.hid, w.tok, w.smp} {
		if err := f.Sync(); err != nil && first == nil {
			first = err
		}
		if err := f.Close(); err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return fmt.Errorf("labels %s: %w", w.dir, first)
	}
	return nil
}
