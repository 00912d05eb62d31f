package generate

import (
	"cmp"
	"slices"

	"actor/retrieve"
)

// RLCoder's constants (METHOD.md §6; RLCoder's main.py).
const (
	// rlcoderQueryLines: the query is the last 20 non-empty lines before
	// the hole.
	rlcoderQueryLines = 20
	// rlcoderPreselect: BM25 pre-selects 50 candidates for re-ranking.
	rlcoderPreselect = 50
	// rlcoderStopText is RLCoder's stop candidate: blocks ranked below it
	// are not shown.
	rlcoderStopText = "Don't need cross file context for completion"
)

// RLCoderWeightsNote names what this baseline lacks.
const RLCoderWeightsNote = "RLCoder's RL-trained retriever weights (RLRetriever, published at huggingface.co/nov3630/RLCoder) are not available here: the BM25 pre-selection is re-ranked with our encoder, which was not trained by RLCoder's reinforcement learning"

// rlcoderNoDenseNote is added when no encoder is available at all.
const rlcoderNoDenseNote = "no dense encoder available: the BM25 pre-selection is kept in BM25 order, without re-ranking or the stop candidate"

// rlcoderRetriever is RLCoder's retrieval: BM25 (k1 1.5, b 0.75) ranks the
// candidates and keeps 50, a dense retriever (mean pooling) re-ranks them
// together with the stop candidate, and the blocks ranked above the stop
// candidate are returned, at most keep.
type rlcoderRetriever struct {
	c    *Corpus
	keep int
	stop []float32 // the stop candidate's embedding (nil without encoder)
}

// NewRLCoder returns the RLCoder-style baseline over the corpus and the
// notes saying how it differs from RLCoder (missing RL-trained weights,
// and no re-ranking without an encoder).
func NewRLCoder(d *Decoder, cfg Config, c *Corpus) (Generator, error) {
	r := &rlcoderRetriever{c: c, keep: cfg.Budget.MaxBlocks}
	notes := []string{RLCoderWeightsNote}
	method := MethodRLCoder
	if c.Dense() {
		e := retrieve.Embedder{Encoder: c.Encoder, Pooling: retrieve.MeanPooling}
		v, err := e.Embed([]string{rlcoderStopText})
		if err != nil {
			return nil, err
		}
		r.stop = v[0]
	} else {
		notes = append(notes, rlcoderNoDenseNote)
		method += "+bm25"
	}
	return &oneShot{base: base{dec: d, cfg: cfg, method: method, notes: notes}, r: r,
		query: func(t retrieve.Target) string { return lastLines(t.Prompt, rlcoderQueryLines, true) }}, nil
}

// Retrieve returns the re-ranked blocks above the stop candidate.
func (r *rlcoderRetriever) Retrieve(query string, ex retrieve.Exclusion) ([]retrieve.Result, error) {
	hits, err := r.c.sparse().TopK(query, rlcoderPreselect, func(i int) bool { return !ex.Excludes(r.c.Blocks[i]) })
	if err != nil {
		return nil, err
	}
	if r.stop != nil {
		if hits, err = r.rerank(query, hits); err != nil {
			return nil, err
		}
	}
	out := make([]retrieve.Result, 0, min(len(hits), r.keep))
	for _, h := range hits[:min(len(hits), r.keep)] {
		out = append(out, retrieve.Result{Candidate: r.c.Blocks[h.Index], Score: h.Score})
	}
	return out, nil
}

// rerank orders hits by cosine with the mean-pooled query and cuts the
// list at the stop candidate (blocks scoring at or below it are dropped).
func (r *rlcoderRetriever) rerank(query string, hits []retrieve.Hit) ([]retrieve.Hit, error) {
	m, err := r.c.dense()
	if err != nil {
		return nil, err
	}
	e := retrieve.Embedder{Encoder: r.c.Encoder, Pooling: retrieve.MeanPooling}
	q, err := e.Embed([]string{query})
	if err != nil {
		return nil, err
	}
	rows := make([]int, len(hits))
	for i, h := range hits {
		rows[i] = h.Index
	}
	scores, err := m.Scores(q[0], rows)
	if err != nil {
		return nil, err
	}
	var stop float64
	for i := range q[0] {
		stop += float64(q[0][i]) * float64(r.stop[i]) // both unit length: cosine
	}
	out := make([]retrieve.Hit, 0, len(hits))
	for i, row := range rows {
		if scores[i] > stop {
			out = append(out, retrieve.Hit{Index: row, Score: scores[i]})
		}
	}
	slices.SortStableFunc(out, func(a, b retrieve.Hit) int { return cmp.Compare(b.Score, a.Score) })
	return out, nil
}
