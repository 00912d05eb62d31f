package tokenizer

import (
	"slices"
	"strings"
)

// Texts by which llama.cpp recognises special tokens whose ids the model's
// metadata does not give; a matching token is also made a control token.
// Recognising the same texts keeps our special-token handling (what is
// matched in text, what is end of generation) equal to llama.cpp's.
var (
	eotTexts = []string{"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>",
		"<|end_of_text|>", "<EOT>", "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>", "<end_of_utterance>"}
	eomTexts    = []string{"<|eom_id|>"}
	fimPreTexts = []string{"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<｜fim▁begin｜>", "<PRE>", "▁<PRE>",
		"<|code_prefix|>", "<|prefix|>"}
	fimSufTexts = []string{"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<｜fim▁hole｜>", "<SUF>", "▁<SUF>",
		"<|code_suffix|>", "<|suffix|>"}
	fimMidTexts = []string{"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<｜fim▁end｜>", "<MID>", "▁<MID>",
		"<|code_middle|>", "<|middle|>"}
	fimPadTexts = []string{"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"}
	fimRepTexts = []string{"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"}
	fimSepTexts = []string{"<|file_sep|>"}
	// eogTexts end generation wherever they appear in a vocabulary.
	eogTexts = []string{"<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>",
		"<|calls|>", "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]",
		"[EOS]", "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
		"<｜end▁of▁sentence｜>", "[e~["}
)

// detectSpecials finds end-of-turn, fill-in-the-middle and end-of-generation
// tokens by text, marks them as control tokens (when mark is set, as
// llama.cpp does; a tokenizer.json declares its special tokens itself), and
// returns the set of ids that end generation (eos, eot, eom included).
func (t *Tokenizer) detectSpecials(eot, eom int32, mark bool) map[int32]bool {
	control := func(id int32) {
		if mark {
			t.attrs[id] |= attrControl
		}
	}
	// first id (lowest) whose text is in texts; marks it control.
	find := func(texts []string) int32 {
		best := int32(-1)
		for _, s := range texts {
			if id, ok := t.byText[s]; ok && (best < 0 || id < best) {
				best = id
			}
		}
		if best >= 0 {
			control(best)
		}
		return best
	}
	if eot < 0 {
		eot = find(eotTexts)
	}
	if eom < 0 {
		eom = find(eomTexts)
	}
	t.fim = FIM{Prefix: find(fimPreTexts), Suffix: find(fimSufTexts), Middle: find(fimMidTexts)}
	eog := map[int32]bool{}
	for i, texts := range [][]string{fimPadTexts, fimRepTexts, fimSepTexts} {
		id := find(texts)
		if id >= 0 {
			eog[id] = true
		}
		switch i {
		case 1:
			t.fim.Repo = id
		case 2:
			t.fim.Sep = id
		}
	}
	for _, s := range eogTexts {
		if id, ok := t.byText[s]; ok {
			eog[id] = true
			control(id)
		}
	}
	for _, id := range []int32{t.eos, eot, eom} {
		if id >= 0 {
			eog[id] = true
		}
	}
	return eog
}

// FIM is a vocabulary's fill-in-the-middle tokens, found by their texts
// as llama.cpp finds them; an id is -1 when the vocabulary has no such
// token.
type FIM struct {
	// Prefix, Suffix and Middle frame the code before and after the hole
	// and ask for the middle.
	Prefix, Suffix, Middle int32
	// Repo starts the repository-level layout (followed by the
	// repository's name); Sep starts each of its files (followed by the
	// file's path and a newline).
	Repo, Sep int32
}

// Infill reports whether the vocabulary can lay out fill in the middle.
func (f FIM) Infill() bool { return f.Prefix >= 0 && f.Suffix >= 0 && f.Middle >= 0 }

// Repository reports whether it also has the repository-level tokens.
func (f FIM) Repository() bool { return f.Repo >= 0 && f.Sep >= 0 }

// FIM returns the vocabulary's fill-in-the-middle tokens.
func (t *Tokenizer) FIM() FIM { return t.fim }

// specialIndex finds which of a list of special tokens occur in a text
// without scanning the text once per token: it indexes the tokens by their
// first two bytes.
type specialIndex struct {
	ids    []int32 // candidates, longest text first (the matching order)
	texts  []string
	first  [256]bool
	single [256][]int // index into ids of one-byte tokens
	pairs  map[uint16][]int
}

func newSpecialIndex(ids []int32, texts []string) *specialIndex {
	x := &specialIndex{ids: ids, pairs: map[uint16][]int{}}
	for i, id := range ids {
		s := texts[id]
		x.texts = append(x.texts, s)
		x.first[s[0]] = true
		if len(s) == 1 {
			x.single[s[0]] = append(x.single[s[0]], i)
		} else {
			k := uint16(s[0])<<8 | uint16(s[1])
			x.pairs[k] = append(x.pairs[k], i)
		}
	}
	return x
}

// present returns the candidates that occur in text, in matching order.
func (x *specialIndex) present(text string) []int {
	if len(x.ids) == 0 {
		return nil
	}
	var found []bool
	mark := func(i int) {
		if found == nil {
			found = make([]bool, len(x.ids))
		}
		found[i] = true
	}
	for p := 0; p < len(text); p++ {
		c := text[p]
		if !x.first[c] {
			continue
		}
		for _, i := range x.single[c] {
			mark(i)
		}
		if p+1 < len(text) {
			for _, i := range x.pairs[uint16(c)<<8|uint16(text[p+1])] {
				if strings.HasPrefix(text[p:], x.texts[i]) {
					mark(i)
				}
			}
		}
	}
	var out []int
	for i, f := range found {
		if f {
			out = append(out, i)
		}
	}
	return out
}

// fragment is a piece of the input: raw text [start,end) when token < 0,
// otherwise a special token matched verbatim.
type fragment struct {
	start, end int
	token      int32
}

// partition splits text at verbatim occurrences of special tokens, as
// llama.cpp's tokenizer_st_partition: token by token, longest text first,
// each splitting every raw fragment at its non-overlapping occurrences.
// User-defined tokens are always matched; control and unknown tokens only
// when parseSpecial is set.
func (t *Tokenizer) partition(text string, parseSpecial bool) []fragment {
	if text == "" {
		return nil
	}
	frags := []fragment{{0, len(text), -1}}
	idx := t.userSpecials
	if parseSpecial {
		idx = t.allSpecials
	}
	for _, i := range idx.present(text) {
		id, s := idx.ids[i], idx.texts[i]
		next := make([]fragment, 0, len(frags)+2)
		for _, f := range frags {
			if f.token >= 0 {
				next = append(next, f)
				continue
			}
			pos := f.start
			for {
				j := strings.Index(text[pos:f.end], s)
				if j < 0 {
					break
				}
				j += pos
				if j > pos {
					next = append(next, fragment{pos, j, -1})
				}
				next = append(next, fragment{j, j + len(s), id})
				pos = j + len(s)
			}
			if pos < f.end {
				next = append(next, fragment{pos, f.end, -1})
			}
		}
		frags = next
	}
	return frags
}

// buildSpecialIndexes collects the tokens matched verbatim in text
// (control, user-defined, unknown), longest first, ties by id.
func (t *Tokenizer) buildSpecialIndexes() {
	var all, user []int32
	for id, a := range t.attrs {
		if a&(attrControl|attrUserDefined|attrUnknown) != 0 {
			all = append(all, int32(id))
		}
	}
	slices.SortStableFunc(all, func(a, b int32) int { return len(t.texts[b]) - len(t.texts[a]) })
	for _, id := range all {
		if t.attrs[id]&(attrControl|attrUnknown) == 0 {
			user = append(user, id)
		}
	}
	t.allSpecials = newSpecialIndex(all, t.texts)
	t.userSpecials = newSpecialIndex(user, t.texts)
}
