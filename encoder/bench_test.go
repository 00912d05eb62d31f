package encoder

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"actor/convert"
	"actor/internal/testsupport"
	"actor/retrieve"
)

// benchQuery is an ACToR-style query: a target's signature and docstring
// (about 60 MiniLM tokens).
const benchQuery = `def read_config(path: str, defaults: dict | None = None) -> dict:
    """Read a TOML configuration file and merge it over the defaults.

    Missing keys keep their default values; unknown keys raise ValueError.
    """
`

// query is benchQuery made distinct per iteration i, so that every
// iteration embeds for real (the encoder returns a repeated input's last
// embedding without computing it).
func query(i int) string { return fmt.Sprintf("%s    # draft %d\n", benchQuery, i) }

// BenchmarkQuery measures dense query latency with all-MiniLM-L6-v2:
// embedding the query (position-aware weighted pooling), alone and followed
// by an exact top-50 search over 10k and 100k random unit vectors, with 1
// and 2 ggml threads.
//
//	go test ./encoder -run XXX -bench Query -benchtime 20x
func BenchmarkQuery(b *testing.B) {
	dir := testsupport.Model(b, "all-minilm-l6-v2")
	path := filepath.Join(b.TempDir(), "minilm.gguf")
	if _, err := convert.Convert(dir, path, convert.Options{}); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	matrices := map[int]*retrieve.Matrix{}
	for _, n := range []int{10_000, 100_000} {
		flat := make([]float32, n*384)
		for i := range flat {
			flat[i] = float32(r.NormFloat64())
		}
		m, err := retrieve.NewMatrix(flat, 384)
		if err != nil {
			b.Fatal(err)
		}
		matrices[n] = m
	}
	for _, threads := range []int{1, 2} {
		e, err := Open(path, Options{Threads: threads})
		if err != nil {
			b.Fatal(err)
		}
		q := retrieve.Embedder{Encoder: e, Pooling: retrieve.WeightedPooling(retrieve.DefaultSigma)}
		b.Run(fmt.Sprintf("embed/threads=%d", threads), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, err := q.Embed([]string{query(i)}); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, n := range []int{10_000, 100_000} {
			d := retrieve.Dense{Query: q, Matrix: matrices[n]}
			b.Run(fmt.Sprintf("embed+top50/n=%d/threads=%d", n, threads), func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					if _, err := d.TopK(query(i), 50, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		e.Close()
	}
}
