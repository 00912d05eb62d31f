package tokenizer

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// piece computes the bytes a token stands for: byte-level BPE tokens map
// their code points back to bytes, SentencePiece tokens turn "▁" into a
// space, <0xXX> tokens are one byte, and special and user-defined tokens
// stand for their own text. Unused and undefined tokens stand for nothing.
func (t *Tokenizer) piece(id int32) string {
	text, a := t.texts[id], t.attrs[id]
	switch {
	case a&(attrControl|attrUnknown|attrUserDefined) != 0:
		return text
	case a&attrNormal != 0 && t.spm:
		return strings.ReplaceAll(text, "▁", " ")
	case a&attrNormal != 0:
		var sb strings.Builder
		for _, r := range text {
			if b, ok := runeToByte[r]; ok {
				sb.WriteByte(b)
			} else {
				sb.WriteRune(r) // not byte-level: keep it (llama.cpp writes an [UNK_BYTE_..] marker)
			}
		}
		return sb.String()
	case a&attrByte != 0:
		if len(text) == 6 && strings.HasPrefix(text, "<0x") && text[5] == '>' {
			if b, err := strconv.ParseUint(text[3:5], 16, 8); err == nil {
				return string([]byte{byte(b)})
			}
		}
		return text
	}
	return ""
}

// Decode returns the text of ids, the inverse of Encode: control and
// unknown tokens are left out, and for SentencePiece models the space that
// Encode put before the text (at the start and after each special token)
// is removed again. Invalid ids are skipped. A Hugging Face tokenizer runs
// its decoder chain (special added tokens left out), keeping bytes that are
// not UTF-8 where tokenizers writes U+FFFD.
func (t *Tokenizer) Decode(ids []int32) string { return t.decode(ids, false) }

// DecodeSpecial is Decode that writes control tokens as their text
// ("<|im_end|>"), the inverse of EncodeSpecial.
func (t *Tokenizer) DecodeSpecial(ids []int32) string { return t.decode(ids, true) }

func (t *Tokenizer) decode(ids []int32, special bool) string {
	if t.hf != nil {
		return t.decodeHF(ids, special)
	}
	var sb strings.Builder
	strip := t.spm && t.addSpacePrefix
	for _, id := range ids {
		if !t.valid(id) {
			continue
		}
		p := t.pieces[id]
		if t.attrs[id]&(attrControl|attrUserDefined|attrUnknown) != 0 {
			if special || !t.IsSpecial(id) {
				sb.WriteString(p)
			}
			strip = t.spm && t.addSpacePrefix
			continue
		}
		if strip && p != "" {
			p = strings.TrimPrefix(p, " ")
			strip = false
		}
		sb.WriteString(p)
	}
	return sb.String()
}

// StreamDecoder turns generated tokens into text as they come, emitting
// only complete UTF-8: bytes of a character split over several tokens are
// held back until the character is complete. Unlike Decode it keeps a
// SentencePiece leading space, since a continuation's first space is text.
type StreamDecoder struct {
	t       *Tokenizer
	pending []byte
}

// NewStreamDecoder returns a decoder for one stream of generated tokens.
func (t *Tokenizer) NewStreamDecoder() *StreamDecoder { return &StreamDecoder{t: t} }

// Add appends token id and returns the text that became complete (often
// empty). Special tokens add nothing.
func (d *StreamDecoder) Add(id int32) string {
	d.pending = append(d.pending, d.t.Piece(id)...)
	return d.emit(false)
}

// Flush returns what is still held back, an unfinished character written
// as U+FFFD, and resets the decoder.
func (d *StreamDecoder) Flush() string { return d.emit(true) }

// emit returns the complete prefix of pending as valid UTF-8 (bytes that
// can never start a character become U+FFFD) and keeps the rest.
func (d *StreamDecoder) emit(final bool) string {
	p := d.pending
	var sb strings.Builder
	i := 0
	for i < len(p) {
		if p[i] < utf8.RuneSelf {
			sb.WriteByte(p[i])
			i++
			continue
		}
		if !final && !utf8.FullRune(p[i:]) {
			break
		}
		r, n := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && n <= 1 {
			sb.WriteRune(utf8.RuneError)
			i++
			continue
		}
		sb.Write(p[i : i+n])
		i += n
	}
	d.pending = append(d.pending[:0], p[i:]...)
	return sb.String()
}
