package unit04

// TokenBytes returns the bytes token id stands for: for byte-level BPE its
// characters mapped back to bytes, for SentencePiece its text with ▁ as a
// space and <0xXX> as that byte. Control tokens (BOS, EOS, …) stand for no
// text. An id outside the vocabulary gives nil.
func (t *Tokenizer) TokenBytes(id int) []byte {
	panic("TODO(4.5): write Tokenizer.TokenBytes, see docs/unit04.md")
}

// Decode returns the text of a sequence of ids. For a SentencePiece
// vocabulary with a space prefix, the one space Encode put before the text
// is removed again, so Decode(Encode(s)) == s. The result may end in the
// middle of a UTF-8 character when the ids end there.
func (t *Tokenizer) Decode(ids []int) string {
	panic("TODO(4.5): write Tokenizer.Decode, see docs/unit04.md")
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
func (t *Tokenizer) NewStream() *Stream {
	panic("TODO(4.5): write Tokenizer.NewStream, see docs/unit04.md")
}

// Next adds one id and returns the text that is now complete (possibly "").
func (s *Stream) Next(id int) string {
	panic("TODO(4.5): write Stream.Next, see docs/unit04.md")
}

// Flush returns whatever is held back: at the end of a sequence, an
// incomplete character is handed out as it is (it never completed).
func (s *Stream) Flush() string {
	panic("TODO(4.5): write Stream.Flush, see docs/unit04.md")
}
