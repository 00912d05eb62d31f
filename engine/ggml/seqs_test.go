package ggml

import (
	"actor/internal/testsupport"
	"strings"
	"testing"

	fsggml "github.com/ollama/ollama/fs/ggml"
)

// seqCase is one sequence of TestForwardSeqsMatchesAlone: the tokens
// already in its cache, then a batch and its outputs.
type seqCase struct {
	cached, batch []int32
	outputs       []int
}

var seqCases = []seqCase{
	{cached: tokens[:5], batch: []int32{9, 99, 199}, outputs: []int{2}},
	{batch: tokens[:7], outputs: []int{0, 6}},
	{cached: tokens, batch: []int32{7}, outputs: []int{0}},
	{cached: tokens[2:9], batch: []int32{400, 401}, outputs: []int{0, 1}},
}

// fill prefills cached into a new cache of m.
func fill(t *testing.T, m *Model, cached []int32) *Cache {
	t.Helper()
	c := newCache(t, m, CacheF32)
	if len(cached) > 0 {
		run(t, m, c, Batch{Tokens: cached})
	}
	return c
}

// A batch of several sequences, each over its own cache at its own
// position, gives each the logits and hidden states of that sequence run
// alone, writes the same keys and values (the next step agrees too), and
// sees nothing of the other sequences.
func TestForwardSeqsMatchesAlone(t *testing.T) {
	for _, typ := range []fsggml.TensorType{fsggml.TensorTypeF32, fsggml.TensorTypeQ8_0, fsggml.TensorTypeQ4_0} {
		for _, flash := range []bool{false, true} {
			name := typ.String()
			if flash {
				name += "/flash"
			}
			t.Run(name, func(t *testing.T) {
				m := loadRandom(t, typ, false, Options{Threads: 1, FlashAttention: flash})
				tol := 1e-4
				if typ != fsggml.TensorTypeF32 {
					tol = 0.05 // activations are quantised per batch of columns
				}
				var seqs []Seq
				var alone []Output
				var solo []*Cache
				for _, sc := range seqCases {
					b := Batch{Tokens: sc.batch, Start: len(sc.cached), Outputs: sc.outputs, Logits: true, Hidden: true}
					c := fill(t, m, sc.cached)
					alone = append(alone, run(t, m, c, b))
					solo = append(solo, c)
					seqs = append(seqs, Seq{Cache: fill(t, m, sc.cached), Batch: b})
				}
				outs, err := m.ForwardSeqs(seqs)
				if err != nil {
					t.Fatal(err)
				}
				var worst float64
				for i, o := range outs {
					if len(o.Logits) != len(seqCases[i].outputs)*wide.Vocab || len(o.Hidden) != len(seqCases[i].outputs)*wide.Embed {
						t.Fatalf("sequence %d: %d logits, %d hidden", i, len(o.Logits), len(o.Hidden))
					}
					worst = max(worst, testsupport.MaxAbsDiff(o.Logits, alone[i].Logits), testsupport.MaxAbsDiff(o.Hidden, alone[i].Hidden))
					for r := range seqCases[i].outputs {
						if argmaxRow(o.Logits[r*wide.Vocab:(r+1)*wide.Vocab]) != argmaxRow(alone[i].Logits[r*wide.Vocab:(r+1)*wide.Vocab]) {
							t.Errorf("sequence %d output %d: top token differs from the sequence alone", i, r)
						}
					}
					// The cache holds what the sequence alone wrote.
					next := Batch{Tokens: []int32{33}, Start: seqs[i].Batch.Start + len(seqCases[i].batch), Outputs: []int{0}, Logits: true}
					worst = max(worst, testsupport.MaxAbsDiff(run(t, m, seqs[i].Cache, next).Logits, run(t, m, solo[i], next).Logits))
				}
				t.Logf("largest difference from the sequences alone: %g", worst)
				if worst > tol {
					t.Errorf("batched sequences differ from each alone by %g (tolerance %g)", worst, tol)
				}
			})
		}
	}
}

func TestForwardSeqsRejects(t *testing.T) {
	m := loadRandom(t, fsggml.TensorTypeF32, false, Options{Threads: 1})
	a, b := newCache(t, m, CacheF32), newCache(t, m, CacheF32)
	ok := Batch{Tokens: []int32{1, 2}, Outputs: []int{1}, Logits: true}
	for _, tc := range []struct {
		name string
		seqs []Seq
		want string
	}{
		{"none", nil, "no sequences"},
		{"shared cache", []Seq{{a, ok}, {a, ok}}, "another sequence's"},
		{"no cache", []Seq{{a, ok}, {nil, ok}}, "sequence 1: no KV cache"},
		{"attention of two", []Seq{{a, Batch{Tokens: []int32{1}, Outputs: []int{0}, Attention: true}}, {b, ok}}, "one sequence at a time"},
		{"other outputs", []Seq{{a, ok}, {b, Batch{Tokens: []int32{1}, Outputs: []int{0}, Hidden: true}}}, "other outputs"},
		{"bad token", []Seq{{a, ok}, {b, Batch{Tokens: []int32{9999}}}}, "sequence 1: token id 9999"},
		{"past the cache", []Seq{{a, ok}, {b, Batch{Tokens: []int32{1}, Start: 128}}}, "do not fit"},
	} {
		_, err := m.ForwardSeqs(tc.seqs)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line containing %q", tc.name, err, tc.want)
		}
	}
}

// A copied prefix continues as the original does.
func TestCacheCopyFrom(t *testing.T) {
	for _, flash := range []bool{false, true} {
		m := loadRandom(t, fsggml.TensorTypeQ8_0, false, Options{Threads: 1, FlashAttention: flash})
		src := fill(t, m, tokens)
		dst := fill(t, m, []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14})
		if err := dst.CopyFrom(src, 9); err != nil {
			t.Fatal(err)
		}
		next := Batch{Tokens: []int32{33, 34}, Start: 9, Outputs: []int{1}, Logits: true}
		want := run(t, m, fill(t, m, tokens[:9]), next).Logits
		if d := testsupport.MaxAbsDiff(run(t, m, dst, next).Logits, want); d != 0 {
			t.Errorf("flash %v: a copied prefix continues with logits %g off", flash, d)
		}
		other := loadRandom(t, fsggml.TensorTypeQ8_0, false, Options{Threads: 1, FlashAttention: flash})
		for _, err := range []error{dst.CopyFrom(fill(t, other, nil), 1), dst.CopyFrom(src, 200),
			dst.CopyFrom(newCache(t, m, CacheF16), 1)} {
			if err == nil {
				t.Errorf("flash %v: a bad copy was accepted", flash)
			}
		}
	}
}
