package unit04

import (
	"strings"
	"unicode/utf8"
)

// TokenBytes returns the bytes token id stands for: for byte-level BPE its
// characters mapped back to bytes, for SentencePiece its text with ▁ as a
// space and <0xXX> as that byte. Control tokens (BOS, EOS, …) stand for no
// text. An id outside the vocabulary gives nil.
func (t *Tokenizer) TokenBytes(id int) []byte {
	if id < 0 || id >= len(t.v.Tokens) {
		return nil
	}
	tok := t.v.Tokens[id]
	switch t.tokenType(id) {
	case TypeControl, TypeUnknown, TypeUnused:
		return nil
	case TypeUserDefined:
		return []byte(tok)
	case TypeByte:
		if t.spm && len(tok) == 6 && strings.HasPrefix(tok, "<0x") {
			var b byte
			for _, c := range tok[3:5] {
				b = b<<4 | hexValue(c)
			}
			return []byte{b}
		}
	}
	if t.spm {
		return []byte(strings.ReplaceAll(tok, spaceMark, " "))
	}
	b, err := FromByteLevel(tok)
	if err != nil {
		return []byte(tok) // not byte-level text: as written
	}
	return b
}

func hexValue(c rune) byte {
	switch {
	case '0' <= c && c <= '9':
		return byte(c - '0')
	case 'A' <= c && c <= 'F':
		return byte(c - 'A' + 10)
	case 'a' <= c && c <= 'f':
		return byte(c - 'a' + 10)
	}
	return 0
}

// Decode returns the text of a sequence of ids. For a SentencePiece
// vocabulary with a space prefix, the one space Encode put before the text
// is removed again, so Decode(Encode(s)) == s. The result may end in the
// middle of a UTF-8 character when the ids end there.
func (t *Tokenizer) Decode(ids []int) string {
	var b strings.Builder
	for i, id := range ids {
		piece := t.TokenBytes(id)
		if i == t.firstText(ids) {
			piece = t.stripPrefix(piece)
		}
		b.Write(piece)
	}
	return b.String()
}

// firstText is the index of the first id that stands for text (BOS and
// other control tokens do not), or −1.
func (t *Tokenizer) firstText(ids []int) int {
	for i, id := range ids {
		if len(t.TokenBytes(id)) > 0 {
			return i
		}
	}
	return -1
}

// stripPrefix removes the space a SentencePiece vocabulary adds in front of
// the text.
func (t *Tokenizer) stripPrefix(piece []byte) []byte {
	if t.spm && t.v.AddSpacePrefix && len(piece) > 0 && piece[0] == ' ' {
		return piece[1:]
	}
	return piece
}

// Stream decodes ids one at a time, as they are generated, and never hands
// out a broken UTF-8 character: bytes of a character that continues in the
// next token are held back until it is complete.
type Stream struct {
	t       *Tokenizer
	pending []byte
	started bool
}

// NewStream starts decoding a new sequence.
func (t *Tokenizer) NewStream() *Stream { return &Stream{t: t} }

// Next adds one id and returns the text that is now complete (possibly "").
func (s *Stream) Next(id int) string {
	piece := s.t.TokenBytes(id)
	if len(piece) == 0 {
		return ""
	}
	if !s.started {
		piece = s.t.stripPrefix(piece)
		s.started = true
	}
	s.pending = append(s.pending, piece...)
	n := completePrefix(s.pending)
	out := string(s.pending[:n])
	s.pending = append(s.pending[:0], s.pending[n:]...)
	return out
}

// Flush returns whatever is held back: at the end of a sequence, an
// incomplete character is handed out as it is (it never completed).
func (s *Stream) Flush() string {
	out := string(s.pending)
	s.pending = s.pending[:0]
	return out
}

// completePrefix returns the length of b without a trailing incomplete
// UTF-8 sequence: one that could still be completed by more bytes. Invalid
// bytes are complete: no later byte can make them valid.
func completePrefix(b []byte) int {
	// An incomplete sequence is at most 3 bytes long: look back that far
	// for a lead byte whose sequence runs past the end.
	for k := 1; k <= 3 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c&0xC0 == 0x80 {
			continue // a continuation byte: keep looking for the lead
		}
		if need := utf8SeqLen(c); c >= 0xC0 && need > k && !utf8.FullRune(b[len(b)-k:]) {
			return len(b) - k
		}
		break
	}
	return len(b)
}
