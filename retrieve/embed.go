package retrieve

import (
	"fmt"

	"actor/index"
)

// Embedder pools an Encoder's token embeddings into unit vectors; it is the
// index.Embedder used to embed candidates (mean pooling unless told) and
// the query side of dense search (weighted pooling in ACToR).
type Embedder struct {
	Encoder Encoder
	Pooling Pooling
	// KeepEnds cuts a text over the encoder's input limit in its middle
	// (CutEncoder); the encoder must be a CutEncoder.
	KeepEnds bool
}

var _ index.Embedder = Embedder{}

// ID names the encoder and the pooling.
func (e Embedder) ID() string {
	id := e.Encoder.ID() + "|" + e.Pooling.String()
	if e.KeepEnds {
		id += "|ends"
	}
	return id
}

// Dim returns the encoder's hidden size.
func (e Embedder) Dim() int { return e.Encoder.Dim() }

// Embed encodes and pools the texts.
func (e Embedder) Embed(texts []string) ([][]float32, error) {
	var b TokenBatch
	var err error
	if e.KeepEnds {
		ce, ok := e.Encoder.(CutEncoder)
		if !ok {
			return nil, fmt.Errorf("%s cannot keep the ends of a long text", e.Encoder.ID())
		}
		b, err = ce.EncodeCut(texts, true)
	} else {
		b, err = e.Encoder.Encode(texts)
	}
	if err != nil {
		return nil, err
	}
	if err := b.Validate(len(texts)); err != nil {
		return nil, fmt.Errorf("%s: %w", e.Encoder.ID(), err)
	}
	if b.Dim != e.Encoder.Dim() {
		return nil, fmt.Errorf("%s: token embeddings of dimension %d, encoder says %d", e.Encoder.ID(), b.Dim, e.Encoder.Dim())
	}
	return e.Pooling.Pool(b)
}

// Dense is the dense Scorer: the query embedded with Query, searched in
// the candidate matrix.
type Dense struct {
	Query  Embedder
	Matrix *Matrix
}

// TopK embeds the query and returns the k most similar candidates.
func (d Dense) TopK(query string, k int, keep func(int) bool) ([]Hit, error) {
	q, err := d.Query.Embed([]string{query})
	if err != nil {
		return nil, err
	}
	return d.Matrix.TopK(q[0], k, keep)
}

// Rerank orders a short list of candidates (RLCoder's BM25 top 50) by
// cosine with the query and returns the best k.
func (d Dense) Rerank(query string, hits []Hit, k int) ([]Hit, error) {
	q, err := d.Query.Embed([]string{query})
	if err != nil {
		return nil, err
	}
	rows := make([]int, len(hits))
	for i, h := range hits {
		rows[i] = h.Index
	}
	scores, err := d.Matrix.Scores(q[0], rows)
	if err != nil {
		return nil, err
	}
	t := newTopK(k)
	for i, r := range rows {
		t.push(Hit{r, scores[i]})
	}
	return t.sorted(), nil
}
