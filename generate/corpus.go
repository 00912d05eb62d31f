package generate

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"actor/index"
	"actor/retrieve"
	"actor/symbols"
	"actor/tokenizer"
)

// Retriever finds a repository's blocks for a query, best first, never
// returning the excluded lines. *retrieve.Retriever is one; ACToR takes any,
// so the dense retriever can be swapped for a sparse one or a test double.
type Retriever interface {
	Retrieve(query string, ex retrieve.Exclusion) ([]retrieve.Result, error)
}

// Corpus is one repository as the methods retrieve from it: its blocks in
// both candidate units and, when an encoder is available, the blocks'
// embeddings.
type Corpus struct {
	// Name is the repository's folder name (the repository format's
	// <|repo_name|>).
	Name string
	// Symbols is the repository's Python symbol table (symbol context, name
	// lookup, the target file's own code).
	Symbols *symbols.Table
	// Blocks are the Split-and-Aggregate blocks (ACToR, RawRAG, RLCoder).
	Blocks []index.Candidate
	// Windows are RepoCoder's 20-line windows every 10 lines.
	Windows []index.Candidate
	// Encoder embeds queries for dense retrieval; nil when none is
	// available. Vectors then holds one mean-pooled embedding per block,
	// row-major, Encoder.Dim() floats a row.
	Encoder retrieve.Encoder
	Vectors []float32

	bm25   *retrieve.BM25 // built on first use
	matrix *retrieve.Matrix
}

// ReadCorpus walks the repository and cuts its files into both candidate
// units in memory (no embeddings). Identical blocks are kept once, the
// first by path and line, as the index does.
func ReadCorpus(root string, opt index.WalkOptions) (*Corpus, error) {
	c := &Corpus{Name: filepath.Base(filepath.Clean(root))}
	files := map[string][]byte{}
	err := index.Walk(root, opt, func(f index.File) error {
		files[f.Path] = f.Data
		c.Blocks = append(c.Blocks, index.DefaultSplitter.Split(f.Path, string(f.Data))...)
		c.Windows = append(c.Windows, index.WindowSplitter.Split(f.Path, string(f.Data))...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.Blocks, c.Windows = index.Dedup(c.Blocks), index.Dedup(c.Windows)
	c.Symbols = symbols.New(files)
	return c, nil
}

// Dense reports whether dense retrieval is possible (an encoder and the
// blocks' vectors).
func (c *Corpus) Dense() bool { return c.Encoder != nil && c.Vectors != nil }

func (c *Corpus) texts() []string {
	out := make([]string, len(c.Blocks))
	for i, b := range c.Blocks {
		out[i] = b.Text
	}
	return out
}

func (c *Corpus) sparse() *retrieve.BM25 {
	if c.bm25 == nil {
		c.bm25 = retrieve.NewBM25(c.texts(), retrieve.DefaultBM25)
	}
	return c.bm25
}

func (c *Corpus) dense() (*retrieve.Matrix, error) {
	if !c.Dense() {
		return nil, errors.New("generate: dense retrieval needs an encoder and the blocks' embeddings")
	}
	if c.matrix == nil {
		dim := c.Encoder.Dim()
		if dim < 1 || len(c.Vectors) != len(c.Blocks)*dim {
			return nil, fmt.Errorf("generate: %d floats of embeddings for %d blocks of dimension %d", len(c.Vectors), len(c.Blocks), dim)
		}
		m, err := retrieve.NewMatrix(slices.Clone(c.Vectors), dim)
		if err != nil {
			return nil, err
		}
		c.matrix = m
	}
	return c.matrix, nil
}

// BM25 returns RLCoder's BM25 over the blocks (top 50 ranked, 10 kept).
func (c *Corpus) BM25() Retriever { return retrieve.New(c.Blocks, c.sparse()) }

// DenseRetriever returns dense retrieval over the blocks, the query pooled
// with p (ACToR: position-aware weights; RawRAG: mean) and, with keepEnds,
// a query over the encoder's input limit cut in its middle instead of at
// its end (retrieve.CutEncoder).
func (c *Corpus) DenseRetriever(p retrieve.Pooling, keepEnds bool) (Retriever, error) {
	m, err := c.dense()
	if err != nil {
		return nil, err
	}
	if _, ok := c.Encoder.(retrieve.CutEncoder); keepEnds && !ok {
		return nil, fmt.Errorf("generate: the encoder %s cannot keep a long query's ends", c.Encoder.ID())
	}
	return retrieve.New(c.Blocks, retrieve.Dense{Query: retrieve.Embedder{Encoder: c.Encoder, Pooling: p, KeepEnds: keepEnds}, Matrix: m}), nil
}

// QueryRetriever is the retriever of the dense methods: dense with pooling
// p when possible, else BM25. fallback is "" for dense, else a warning
// naming the fallback.
func (c *Corpus) QueryRetriever(p retrieve.Pooling, keepEnds bool) (r Retriever, fallback string, err error) {
	if !c.Dense() {
		return c.BM25(), "no dense encoder available: retrieval falls back to BM25 (the paper uses a dense retriever)", nil
	}
	r, err = c.DenseRetriever(p, keepEnds)
	return r, "", err
}

// RepoCoder returns RepoCoder's retriever: Jaccard similarity of the
// generator's token-id sets over the 20-line windows.
func (c *Corpus) RepoCoder(tok *tokenizer.Tokenizer) Retriever {
	texts := make([]string, len(c.Windows))
	for i, w := range c.Windows {
		texts[i] = w.Text
	}
	enc := func(s string) []int32 { return tok.Encode(s, false) }
	return retrieve.New(c.Windows, retrieve.NewJaccard(texts, enc))
}
