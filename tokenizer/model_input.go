package tokenizer

// Inputs for encoder models (retrieval embeddings): one sequence with the
// post-processor's special tokens ([CLS] … [SEP], <s> … </s>), cut to the
// model's length, and right-padded batches with attention masks.

// wrap applies the post-processing template to the ids of one sequence.
func (t *Tokenizer) wrap(ids []int32) []int32 {
	out := make([]int32, 0, len(ids)+t.NumSpecial())
	for _, p := range t.post {
		if p.seq {
			out = append(out, ids...)
		} else {
			out = append(out, p.ids...)
		}
	}
	return out
}

// NumSpecial returns how many special tokens Encode with addSpecial (and
// EncodeForModel) adds to one sequence: 2 for BERT's [CLS] … [SEP].
func (t *Tokenizer) NumSpecial() int {
	n := 0
	for _, p := range t.post {
		n += len(p.ids)
	}
	return n
}

// Cut chooses the tokens a text longer than an input limit loses.
type Cut int

const (
	// CutEnd drops the text's last tokens (Hugging Face's truncation).
	CutEnd Cut = iota
	// CutEnds drops tokens from the middle, so that both ends stay: the
	// first half of the room (rounded up) holds the text's first tokens,
	// the rest its last ones. For a retrieval query that grows at its
	// end (ACToR's: the target's prompt, then the code generated so far),
	// CutEnd would drop exactly the part that grows.
	CutEnds
)

// EncodeForModel returns the ids an encoder reads for text, as Hugging
// Face's tokenizer(text, truncation=True, max_length=maxLen) gives them:
// special-token texts in the input are matched as those tokens, the text's
// tokens are cut at the end so that with the template's special tokens the
// whole is at most maxLen long (maxLen <= 0: no limit), then the template
// is applied.
func (t *Tokenizer) EncodeForModel(text string, maxLen int) []int32 {
	return t.EncodeForModelCut(text, maxLen, CutEnd)
}

// EncodeForModelCut is EncodeForModel with the text's tokens cut as cut
// says.
func (t *Tokenizer) EncodeForModelCut(text string, maxLen int, cut Cut) []int32 {
	return t.wrap(t.encodeCut(text, maxLen, t.NumSpecial(), cut))
}

// EncodeFramed is EncodeForModelCut with the caller's special tokens
// around the text in place of the template's, for models with their own
// layout (UniXcoder's encoder mode: <s> <encoder-only> </s> … </s>); the
// text's tokens are cut so that the whole is at most maxLen long.
func (t *Tokenizer) EncodeFramed(text string, maxLen int, cut Cut, before, after []int32) []int32 {
	ids := t.encodeCut(text, maxLen, len(before)+len(after), cut)
	out := make([]int32, 0, len(before)+len(ids)+len(after))
	return append(append(append(out, before...), ids...), after...)
}

// encodeCut returns the ids of text (special-token texts matched) cut to
// leave room for n special tokens within maxLen (maxLen <= 0: no limit).
func (t *Tokenizer) encodeCut(text string, maxLen, n int, cut Cut) []int32 {
	ids := t.EncodeSpecial(text, false)
	keep := max(maxLen-n, 0)
	if maxLen <= 0 || len(ids) <= keep {
		return ids
	}
	if cut == CutEnds {
		head := (keep + 1) / 2
		return append(ids[:head:head], ids[len(ids)-(keep-head):]...)
	}
	return ids[:keep]
}

// Batch is a right-padded batch of encoder inputs.
type Batch struct {
	// IDs holds Rows×Width token ids, row-major; padding positions hold
	// the pad id (0 when the tokenizer has none).
	IDs []int32
	// Mask holds the attention mask, same shape: 1 for a token, 0 for
	// padding.
	Mask []int32
	// Lens holds the number of real tokens of each row.
	Lens        []int
	Rows, Width int
}

// EncodeBatch encodes texts with EncodeForModel and pads them on the right
// to the longest row. Token type ids are all 0 for single sequences.
func (t *Tokenizer) EncodeBatch(texts []string, maxLen int) Batch {
	rows := make([][]int32, len(texts))
	b := Batch{Rows: len(texts), Lens: make([]int, len(texts))}
	for i, s := range texts {
		rows[i] = t.EncodeForModel(s, maxLen)
		b.Lens[i] = len(rows[i])
		b.Width = max(b.Width, len(rows[i]))
	}
	pad := max(t.pad, 0)
	b.IDs = make([]int32, b.Rows*b.Width)
	b.Mask = make([]int32, b.Rows*b.Width)
	for i, r := range rows {
		row, mask := b.IDs[i*b.Width:(i+1)*b.Width], b.Mask[i*b.Width:(i+1)*b.Width]
		copy(row, r)
		for j := range row {
			if j < len(r) {
				mask[j] = 1
			} else {
				row[j] = pad
			}
		}
	}
	return b
}

// PadID returns the padding token id, -1 if the tokenizer has none.
func (t *Tokenizer) PadID() int32 { return t.pad }

// TokenID returns the id of the token with the given text ("<mask>",
// "<encoder-only>", "[CLS]"), and whether there is one.
func (t *Tokenizer) TokenID(text string) (int32, bool) {
	id, ok := t.byText[text]
	return id, ok
}
