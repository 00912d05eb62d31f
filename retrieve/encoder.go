// Package retrieve finds the repository blocks a code model should see:
// dense search (pooled encoder embeddings, exact top-k cosine), the sparse
// scorers of the baselines (BM25, Jaccard), the rule that hides the target
// function's own lines, and the ACToR and RepoCoder prompt layouts under a
// generator-token budget. It knows nothing of the model engine: encoders and
// tokenizers come in through the Encoder and TokenCounter interfaces.
package retrieve

import "fmt"

// TokenBatch is an encoder's last hidden layer for a batch of texts,
// right-padded to a common length Seq: text b's token t is the Dim floats
// at Data[(b*Seq+t)*Dim:]. Only the first Lengths[b] positions of a text are
// real tokens (special tokens such as <s> and </s> included); the rest is
// padding whatever it holds.
type TokenBatch struct {
	Data    []float32
	Seq     int
	Dim     int
	Lengths []int
}

// Encoder is a bidirectional text encoder (BERT / RoBERTa layout). Encode
// tokenises the texts (with the model's special tokens and truncation) and
// returns their token embeddings; pooling is left to this package. ID names
// the model and its input layout (for example the model file's hash and
// whether <encoder-only> is used), so stored vectors are never mixed across
// encoders.
type Encoder interface {
	ID() string
	Dim() int
	Encode(texts []string) (TokenBatch, error)
}

// CutEncoder is an Encoder that can keep both ends of a text longer than
// its input limit, cutting the middle (EncodeCut with keepEnds) instead of
// the end. ACToR's query is the target's prompt followed by the code
// generated so far: cut at its end, a long one loses the generated code,
// and retrieving again changes nothing.
type CutEncoder interface {
	Encoder
	EncodeCut(texts []string, keepEnds bool) (TokenBatch, error)
}

// Validate checks that the batch's shape is consistent with n texts.
func (b TokenBatch) Validate(n int) error {
	if len(b.Lengths) != n {
		return fmt.Errorf("encoder returned %d sequences for %d texts", len(b.Lengths), n)
	}
	if b.Dim <= 0 || b.Seq < 0 || len(b.Data) != n*b.Seq*b.Dim {
		return fmt.Errorf("encoder output of %d floats does not match %d×%d×%d", len(b.Data), n, b.Seq, b.Dim)
	}
	for i, l := range b.Lengths {
		if l < 1 || l > b.Seq {
			return fmt.Errorf("encoder output: sequence %d has length %d (padded length %d)", i, l, b.Seq)
		}
	}
	return nil
}

// Token returns the embedding of token t of text i.
func (b TokenBatch) Token(i, t int) []float32 {
	off := (i*b.Seq + t) * b.Dim
	return b.Data[off : off+b.Dim]
}
