package generate

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"actor/engine"
	"actor/retrieve"
)

// BlockStore keeps the keys and values of retrieved blocks for ACToR's
// block KV reuse (issue 11, lever 3): after a context change the blocks of
// the new prompt are placed from the store, their keys re-rotated to their
// new positions, and only the blocks never seen before, the target's
// prompt and the generated tokens are computed. A block's keys and values
// are those of its first computation: in the prompt it was first seen in
// (attending to the blocks before it there) or, for a block new to the
// store, alone from position 0. So blocks placed after a change no longer
// attend to the blocks now before them: an approximation of exact ACToR,
// whose cost and effect are measured in BENCHMARKS.md.
//
// A store belongs to one model; the decoders of GenerateSamples' lanes
// share their parent's. Least recently used blocks are dropped past
// MaxBytes.
type BlockStore struct {
	// MaxBytes bounds the memory of the kept keys and values (0:
	// DefaultBlockStoreBytes).
	MaxBytes int64

	mu      sync.Mutex
	entries map[string]*storedBlock
	bytes   int64
	clock   int
	stats   ReuseStats
	// dir and model, when set (Persist), keep every block on disk too.
	dir   string
	model *engine.Model
}

// DefaultBlockStoreBytes is the default bound of a BlockStore: about 43,000
// tokens of Qwen2.5-Coder-0.5B (12 KiB each), 4–5 repositories' worth of
// retrieved blocks.
const DefaultBlockStoreBytes = 512 << 20

// ReuseStats counts a store's work.
type ReuseStats struct {
	// Placed counts block tokens placed from the store instead of being
	// computed; Computed the block tokens computed alone for it (new
	// blocks); Harvested the block tokens saved from prompts the model
	// had computed anyway; Tail the tokens after the blocks moved with
	// DecoderOptions.ReuseTail.
	Placed, Computed, Harvested, Tail int
	// Loaded counts block tokens read from the store's folder (Persist),
	// Stored those written there.
	Loaded, Stored int
}

type storedBlock struct {
	kv   *engine.KV
	used int
}

// NewBlockStore returns an empty store bounded by maxBytes (0: the default).
func NewBlockStore(maxBytes int64) *BlockStore {
	return &BlockStore{MaxBytes: maxBytes, entries: map[string]*storedBlock{}}
}

// Stats returns the store's counters.
func (b *BlockStore) Stats() ReuseStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}

// Close frees every kept block.
func (b *BlockStore) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k, e := range b.entries {
		e.kv.Close()
		delete(b.entries, k)
	}
	b.bytes = 0
}

func blockKey(tokens []int32) string {
	buf := make([]byte, 0, 4*len(tokens))
	for _, t := range tokens {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(t))
	}
	return string(buf)
}

// Persist keeps the store's blocks in a folder of dir named for the model
// file and its cache layout as well as in memory: a block computed once
// is read back by later processes (the next tasks of a benchmark run, the
// next requests of a server) instead of being computed again. The same
// approximation as in memory, carried further: a block keeps what it
// attended to when first computed, in whatever prompt that was.
func (b *BlockStore) Persist(dir string, m *engine.Model) error {
	info, err := os.Stat(m.Path())
	if err != nil {
		return err
	}
	sub := filepath.Join(dir, fmt.Sprintf("%s-%d-%s", filepath.Base(m.Path()), info.Size(), m.KVLayout()))
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.dir, b.model = sub, m
	return nil
}

// file is where the block of key lives in the store's folder.
func (b *BlockStore) file(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(b.dir, hex.EncodeToString(sum[:])+".kv")
}

// get returns the kept block of these tokens, or nil (b.mu held): from
// memory, else from the store's folder. A file that cannot be read is a
// miss, and removed.
func (b *BlockStore) get(tokens []int32) *engine.KV {
	key := blockKey(tokens)
	e := b.entries[key]
	if e == nil {
		return b.load(key, tokens)
	}
	b.clock++
	e.used = b.clock
	return e.kv
}

// load reads the block of key from the store's folder into memory (b.mu
// held).
func (b *BlockStore) load(key string, tokens []int32) *engine.KV {
	if b.dir == "" {
		return nil
	}
	path := b.file(key)
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	kv, err := b.model.ReadKV(f)
	f.Close()
	if err != nil || !slices.Equal(kv.Tokens(), tokens) {
		if kv != nil {
			kv.Close()
		}
		os.Remove(path) // unreadable or another block's: written anew when computed
		return nil
	}
	b.keep(key, kv)
	b.stats.Loaded += kv.Len()
	return kv
}

// save writes kv to the store's folder unless it is there (b.mu held); a
// failed write leaves no file and the block only in memory.
func (b *BlockStore) save(key string, kv *engine.KV) {
	if b.dir == "" {
		return
	}
	path := b.file(key)
	if _, err := os.Stat(path); err == nil {
		return
	}
	tmp, err := os.CreateTemp(b.dir, ".partial-*")
	if err != nil {
		return
	}
	_, err = kv.WriteTo(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return
	}
	b.stats.Stored += kv.Len()
}

// put keeps kv under its tokens, in memory and in the store's folder
// (b.mu held).
func (b *BlockStore) put(kv *engine.KV) {
	key := blockKey(kv.Tokens())
	b.keep(key, kv)
	b.save(key, kv)
}

// keep holds kv in memory under key, dropping the least recently used
// blocks past the bound (b.mu held). kv itself is kept even when it alone
// exceeds the bound, until the next one.
func (b *BlockStore) keep(key string, kv *engine.KV) {
	if old := b.entries[key]; old != nil {
		b.bytes -= old.kv.Bytes()
		old.kv.Close()
	}
	limit := b.MaxBytes
	if limit <= 0 {
		limit = DefaultBlockStoreBytes
	}
	for b.bytes+kv.Bytes() > limit && len(b.entries) > 0 {
		var lruKey string
		lru := -1
		for k, e := range b.entries {
			if lru < 0 || e.used < lru {
				lruKey, lru = k, e.used
			}
		}
		b.bytes -= b.entries[lruKey].kv.Bytes()
		b.entries[lruKey].kv.Close()
		delete(b.entries, lruKey)
	}
	b.clock++
	b.entries[key] = &storedBlock{kv: kv, used: b.clock}
	b.bytes += kv.Bytes()
}

// tokenSpan is a range [start, end) of a sequence's tokens.
type tokenSpan struct{ start, end int }

// promptTokens encodes a prompt for the model (with healing, its final
// newline left out) and finds the tokens of each block span: each span's
// text encoded on its own must give the tokens at its place in the whole
// prompt, which holds where a span's ends are boundaries of the
// tokenizer's pre-tokenisation (ACToR's blocks end with a blank line and
// the next starts with "#"). Spans are given only while that holds, from
// the first on.
func (d *Decoder) promptTokens(p retrieve.Prompt, heal bool) ([]int32, []tokenSpan) {
	ids := d.encodeText(p, modelPrompt(p.Text, heal), true)
	var spans []tokenSpan
	at := 0
	for i, sp := range p.Spans {
		if sp.Start != 0 && (i == 0 || sp.Start != p.Spans[i-1].End) {
			break
		}
		part := d.encodeText(p, p.Text[sp.Start:sp.End], i == 0)
		if end := at + len(part); len(part) == 0 || end >= len(ids) || !slices.Equal(ids[at:end], part) {
			break
		}
		spans = append(spans, tokenSpan{at, at + len(part)})
		at += len(part)
	}
	return ids, spans
}

// harvest keeps the blocks of slot s's sequence that the store lacks,
// copied from its cache: keys and values the model computed anyway.
func (d *Decoder) harvest(s *slot) error {
	if s == nil {
		return nil
	}
	b := d.opt.Blocks
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, sp := range s.spans {
		if sp.end > len(s.cached) || b.get(s.cached[sp.start:sp.end]) != nil {
			continue
		}
		kv, err := s.sess.Save(sp.start, sp.end)
		if err != nil {
			return err
		}
		b.put(kv)
		b.stats.Harvested += kv.Len()
	}
	return nil
}

// place fills slot s with the blocks of seq that follow the prefix its
// cache already holds, from the store, each computed alone first when the
// store lacks it; the caller's prefill then computes the rest of seq. A
// block partly in the kept prefix is placed whole again.
//
// With ReuseTail the tokens after the blocks but the last (the target's
// prompt and the generated tokens), when prev — the sequence decoded
// before — ends with them too, are moved from prev's cache after the
// blocks, so that only seq's last token is computed.
func (d *Decoder) place(prev, s *slot, seq []int32, spans []tokenSpan) error {
	keep := commonPrefix(s.cached, seq)
	i := 0
	for i < len(spans) && spans[i].end <= keep {
		i++
	}
	if i == len(spans) || spans[i].start > keep {
		return nil
	}
	tail, err := d.saveTail(prev, seq, spans)
	if err != nil {
		return err
	}
	if tail != nil {
		defer tail.Close()
	}
	at := spans[i].start
	if err := s.sess.Truncate(min(at, s.sess.Len())); err != nil {
		return err
	}
	s.cached = s.cached[:min(at, len(s.cached))]
	b := d.opt.Blocks
	b.mu.Lock()
	defer b.mu.Unlock()
	for ; i < len(spans) && spans[i].start == s.sess.Len() && spans[i].end < len(seq); i++ {
		toks := seq[spans[i].start:spans[i].end]
		kv := b.get(toks)
		if kv == nil {
			var err error
			e0 := d.stats.Evaluated
			if kv, err = d.computeAlone(toks); err != nil {
				return err
			}
			b.put(kv)
			b.stats.Computed += kv.Len()
			d.aloneTokens += d.stats.Evaluated - e0 // the scratch cache may hold a shared start
		} else {
			b.stats.Placed += kv.Len()
			d.placedTokens += kv.Len()
		}
		if err := s.sess.Place(kv); err != nil {
			return err
		}
		s.cached = append(s.cached, toks...)
	}
	if end := spans[len(spans)-1].end; tail != nil && s.sess.Len() == end {
		if err := s.sess.Place(tail); err != nil {
			return err
		}
		s.cached = append(s.cached, seq[end:end+tail.Len()]...)
		b.stats.Tail += tail.Len()
		d.placedTokens += tail.Len()
	}
	return nil
}

// saveTail copies, with ReuseTail, the keys and values of the tokens after
// seq's blocks but its last from prev's cache, where they follow prev's
// blocks; nil when prev does not hold them there.
func (d *Decoder) saveTail(prev *slot, seq []int32, spans []tokenSpan) (*engine.KV, error) {
	if !d.opt.ReuseTail || prev == nil || len(prev.spans) == 0 || len(spans) == 0 {
		return nil, nil
	}
	from, to := prev.spans[len(prev.spans)-1].end, spans[len(spans)-1].end
	n := len(seq) - 1 - to
	if n <= 0 || from+n > len(prev.cached) || !slices.Equal(prev.cached[from:from+n], seq[to:to+n]) {
		return nil, nil
	}
	return prev.sess.Save(from, from+n)
}

// computeAlone runs a block's tokens alone from position 0 in the
// decoder's scratch session and saves their keys and values.
func (d *Decoder) computeAlone(toks []int32) (*engine.KV, error) {
	s, err := d.own(&d.scratch)
	if err != nil {
		return nil, err
	}
	c0 := s.Computed()
	if _, err := s.Prefill(toks); err != nil {
		return nil, err
	}
	d.stats.Evaluated += s.Computed() - c0
	return s.Save(0, len(toks))
}

// own returns the decoder's session *s, opened on first use.
func (d *Decoder) own(s **engine.Session) (*engine.Session, error) {
	if *s == nil {
		n, err := d.model.NewSession()
		if err != nil {
			return nil, err
		}
		*s = n
	}
	return *s, nil
}

// checkReuse prefills seq exactly in the check session and compares its
// prediction with got, the one after placing blocks (nil unless
// CheckReuse is on with a store).
func (d *Decoder) checkReuse(seq []int32, got engine.Prediction) (*ReuseCheck, error) {
	if !d.opt.CheckReuse || d.opt.Blocks == nil {
		return nil, nil
	}
	s, err := d.own(&d.check)
	if err != nil {
		return nil, err
	}
	c0 := s.Computed()
	exact, err := s.Prefill(seq)
	if err != nil {
		return nil, err
	}
	return &ReuseCheck{KL: engine.KL(exact, got), SameTop1: exact.Top1 == got.Top1,
		ExactEvaluated: s.Computed() - c0}, nil
}
