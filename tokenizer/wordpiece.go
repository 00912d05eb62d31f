package tokenizer

import "unicode/utf8"

// wordModel turns one pre-token into ids.
type wordModel interface {
	encodeWord(word string, out []int32) []int32
}

// wordPiece is BERT's WordPiece: greedy longest-match-first over the
// vocabulary, pieces after the first carrying the continuation prefix
// ("##"); a word with a part no token covers, or longer than maxChars
// characters, becomes the unknown token.
type wordPiece struct {
	vocab    map[string]int32
	prefix   string
	maxChars int
	unk      int32
}

func (w *wordPiece) encodeWord(word string, out []int32) []int32 {
	if word == "" {
		return out
	}
	if utf8.RuneCountInString(word) > w.maxChars {
		return append(out, w.unk)
	}
	n0 := len(out)
	var buf []byte
	for start := 0; start < len(word); {
		end := len(word)
		found := int32(-1)
		for start < end {
			var id int32
			var ok bool
			if start == 0 {
				id, ok = w.vocab[word[:end]]
			} else {
				buf = append(append(buf[:0], w.prefix...), word[start:end]...)
				id, ok = w.vocab[string(buf)]
			}
			if ok {
				found = id
				break
			}
			_, n := utf8.DecodeLastRuneInString(word[start:end])
			end -= n
		}
		if found < 0 {
			return append(out[:n0], w.unk)
		}
		out = append(out, found)
		start = end
	}
	return out
}
