package labelstore

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// hiddenMagic opens hidden.f16; a u32 version and a u32 row length follow.
const (
	hiddenMagic   = "ACTRHF16"
	hiddenHeader  = 16
	hiddenVersion = 1
)

// hiddenHeaderBytes returns the 16-byte header of hidden.f16 for rows of d.
func hiddenHeaderBytes(d int) []byte {
	b := make([]byte, hiddenHeader)
	copy(b, hiddenMagic)
	binary.LittleEndian.PutUint32(b[8:], hiddenVersion)
	binary.LittleEndian.PutUint32(b[12:], uint32(d))
	return b
}

// checkHiddenHeader validates the header bytes against the row length d.
func checkHiddenHeader(b []byte, d int) error {
	if len(b) < hiddenHeader {
		return fmt.Errorf("truncated: %d bytes, shorter than its %d-byte header", len(b), hiddenHeader)
	}
	if string(b[:8]) != hiddenMagic {
		return errors.New("not a hidden-state file (bad magic)")
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != hiddenVersion {
		return fmt.Errorf("format version %d not supported (this build reads %d)", v, hiddenVersion)
	}
	if got := binary.LittleEndian.Uint32(b[12:]); int64(got) != int64(d) {
		return fmt.Errorf("rows of %d values, but %s says hidden size %d", got, HeaderFile, d)
	}
	return nil
}

// state is what scanning a labels directory finds: the complete samples,
// their tokens, and how many bytes of each file belong to them.
type state struct {
	h                                 Header
	samples                           []Sample
	tokens                            []Token
	samplesEnd, tokensEnd, hiddenEnd  int64 // consistent prefix lengths
	samplesSize, tokensSize, hiddenSz int64 // actual file sizes
}

// readHeader reads and validates labels.json.
func readHeader(dir string) (Header, error) {
	path := filepath.Join(dir, HeaderFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return Header{}, fmt.Errorf("labels header %s: %w", path, err)
	}
	var h Header
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return Header{}, fmt.Errorf("labels header %s: invalid JSON: %w", path, err)
	}
	if err := h.validate(); err != nil {
		return Header{}, fmt.Errorf("labels header %s: %w", path, err)
	}
	return h, nil
}

// jsonLines calls fn on every newline-terminated line of b (1-based line
// numbers) and returns the byte length of those lines; bytes after the last
// newline are an incomplete tail that fn never sees.
func jsonLines(b []byte, fn func(line int, text []byte) error) (int64, error) {
	off, line := 0, 0
	for {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			return int64(off), nil
		}
		line++
		if err := fn(line, b[off:off+i]); err != nil {
			return 0, err
		}
		off += i + 1
	}
}

// parseSamples parses samples.jsonl content: complete lines only, checked
// for unique ids and contiguous rows.
func parseSamples(b []byte) (samples []Sample, end int64, err error) {
	seen := map[string]bool{}
	var rows int64
	end, err = jsonLines(b, func(line int, text []byte) error {
		var s Sample
		if err := json.Unmarshal(text, &s); err != nil {
			return fmt.Errorf("line %d: invalid JSON: %w", line, err)
		}
		switch {
		case s.ID == "":
			return fmt.Errorf("line %d: empty sample id", line)
		case seen[s.ID]:
			return fmt.Errorf("line %d: sample id %q repeated", line, s.ID)
		case s.Tokens < 1 || s.Tokens > 1<<24:
			return fmt.Errorf("line %d: sample %q has %d tokens", line, s.ID, s.Tokens)
		case s.FirstRow != rows:
			return fmt.Errorf("line %d: sample %q starts at row %d, expected %d", line, s.ID, s.FirstRow, rows)
		}
		seen[s.ID] = true
		rows += int64(s.Tokens)
		samples = append(samples, s)
		return nil
	})
	return samples, end, err
}

// parseTokens parses the first rows complete lines of tokens.jsonl, checking
// each record against its sample.
func parseTokens(b []byte, samples []Sample, rows int64) (tokens []Token, end int64, err error) {
	tokens = make([]Token, 0, rows)
	k := 0 // current sample
	errStop := errors.New("stop")
	end, err = jsonLines(b, func(line int, text []byte) error {
		r := int64(len(tokens))
		if r == rows {
			return errStop
		}
		var t Token
		if err := json.Unmarshal(text, &t); err != nil {
			return fmt.Errorf("line %d: invalid JSON: %w", line, err)
		}
		for r >= samples[k].FirstRow+int64(samples[k].Tokens) {
			k++
		}
		s := &samples[k]
		switch {
		case t.Row != r:
			return fmt.Errorf("line %d: row %d, expected %d", line, t.Row, r)
		case t.Sample != s.ID || int64(t.Pos) != r-s.FirstRow:
			return fmt.Errorf("line %d: token %s/%d, expected %s/%d (records out of step with %s)", line, t.Sample, t.Pos, s.ID, r-s.FirstRow, SamplesFile)
		case !(t.Start == -1 && t.End == -1) && (t.Start < 0 || t.Start > t.End || t.End > len(s.Target)):
			return fmt.Errorf("line %d: span %d..%d outside the target's %d bytes", line, t.Start, t.End, len(s.Target))
		}
		tokens = append(tokens, t)
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
		end = lineEnd(b, rows)
	}
	if err != nil {
		return nil, 0, err
	}
	if int64(len(tokens)) < rows {
		return nil, 0, fmt.Errorf("has %d complete records but %s lists %d tokens: truncated or corrupt", len(tokens), SamplesFile, rows)
	}
	return tokens, end, nil
}

// lineEnd returns the byte offset just after the n-th newline of b.
func lineEnd(b []byte, n int64) int64 {
	off := 0
	for ; n > 0; n-- {
		off += bytes.IndexByte(b[off:], '\n') + 1
	}
	return int64(off)
}

// scan reads a labels directory and finds its consistent prefix.
func scan(dir string) (*state, error) {
	h, err := readHeader(dir)
	if err != nil {
		return nil, err
	}
	st := &state{h: h}
	sp := filepath.Join(dir, SamplesFile)
	sb, err := os.ReadFile(sp)
	if err != nil {
		return nil, fmt.Errorf("labels file %s: %w", sp, err)
	}
	st.samplesSize = int64(len(sb))
	if st.samples, st.samplesEnd, err = parseSamples(sb); err != nil {
		return nil, fmt.Errorf("labels file %s: %w", sp, err)
	}
	var rows int64
	if n := len(st.samples); n > 0 {
		rows = st.samples[n-1].FirstRow + int64(st.samples[n-1].Tokens)
	}
	tp := filepath.Join(dir, TokensFile)
	tb, err := os.ReadFile(tp)
	if err != nil {
		return nil, fmt.Errorf("labels file %s: %w", tp, err)
	}
	st.tokensSize = int64(len(tb))
	if st.tokens, st.tokensEnd, err = parseTokens(tb, st.samples, rows); err != nil {
		return nil, fmt.Errorf("labels file %s: %w", tp, err)
	}
	hp := filepath.Join(dir, HiddenFile)
	f, err := os.Open(hp)
	if err != nil {
		return nil, fmt.Errorf("labels file %s: %w", hp, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("labels file %s: %w", hp, err)
	}
	st.hiddenSz = fi.Size()
	hb := make([]byte, hiddenHeader)
	n, _ := f.ReadAt(hb, 0)
	if err := checkHiddenHeader(hb[:n], h.Model.Hidden); err != nil {
		return nil, fmt.Errorf("labels file %s: %w", hp, err)
	}
	st.hiddenEnd = hiddenHeader + rows*int64(2*h.Model.Hidden)
	if st.hiddenSz < st.hiddenEnd {
		return nil, fmt.Errorf("labels file %s: truncated: %d bytes, but %d tokens of %d float16 values need %d",
			hp, st.hiddenSz, rows, h.Model.Hidden, st.hiddenEnd)
	}
	return st, nil
}

// tail describes what lies beyond the last complete sample, or "".
func (st *state) tail() string {
	var parts []string
	if d := st.samplesSize - st.samplesEnd; d > 0 {
		parts = append(parts, fmt.Sprintf("%d bytes of an unfinished %s line", d, SamplesFile))
	}
	if d := st.tokensSize - st.tokensEnd; d > 0 {
		parts = append(parts, fmt.Sprintf("%d bytes of %s", d, TokensFile))
	}
	if d := st.hiddenSz - st.hiddenEnd; d > 0 {
		parts = append(parts, fmt.Sprintf("%d bytes of %s", d, HiddenFile))
	}
	if len(parts) == 0 {
		return ""
	}
	s := parts[0]
	for _, p := range parts[1:] {
		s += ", " + p
	}
	return s
}
