package unit04

// Tokenizer encodes text to token ids and back for one vocabulary.
type Tokenizer struct {
	v       *Vocab
	ids     map[string]int // token text → id
	spm     bool           // SentencePiece BPE, not byte-level
	pre     PreTokenizer
	ranker  Ranker            // merge ranks: the merge list, or token ids without one
	pairs   map[uint64]uint64 // optional speed-up: merges keyed by pairs of token ids
	byteIDs [256]int32        // the token of each byte's character, −1 if none
	special []int             // tokens matched in the text itself: longest first
	bytes   [256]int          // SentencePiece byte-fallback tokens, −1 where missing
}

// EncodeOptions choose what Encode adds besides the text's own tokens.
type EncodeOptions struct {
	// AddSpecial adds BOS before and EOS after the text, as the
	// vocabulary's AddBOS and AddEOS flags say (nothing where the id is −1).
	AddSpecial bool
	// ParseSpecial recognises control tokens written in the text, such as
	// "<|endoftext|>" or "<s>". Without it they are ordinary text, so a
	// user cannot inject them. User-defined tokens (TypeUserDefined: added
	// words, and in DeepSeek's vocabularies single characters such as "ü")
	// are cut out of the text either way, as llama.cpp does. Special
	// tokens with empty text are never matched; where one contains
	// another, the longest is tried first.
	ParseSpecial bool
}

// New builds the tokenizer of a vocabulary: byte-level BPE for model
// "gpt2", SentencePiece BPE for "llama". Another model or an unknown
// pre-tokenizer is an error wrapping unit00.ErrUnsupported, a malformed
// merge list one wrapping unit00.ErrInvalid. A token text that repeats
// stands for its first id.
func New(v *Vocab) (*Tokenizer, error) {
	panic("TODO(4.3): write New, see docs/unit04.md")
}

// VocabSize is the number of tokens.
func (t *Tokenizer) VocabSize() int {
	panic("TODO(4.3): write Tokenizer.VocabSize, see docs/unit04.md")
}

// BOS and EOS are the vocabulary's beginning and end tokens (−1 if none).
func (t *Tokenizer) BOS() int {
	panic("TODO(4.3): write Tokenizer.BOS, see docs/unit04.md")
}

// EOS is the vocabulary's end-of-sequence token (−1 if none).
func (t *Tokenizer) EOS() int {
	panic("TODO(4.3): write Tokenizer.EOS, see docs/unit04.md")
}

// Encode returns the token ids of text. Invalid UTF-8 is encoded byte for
// byte like any other text.
func (t *Tokenizer) Encode(text string, opt EncodeOptions) []int {
	panic("TODO(4.3): write Tokenizer.Encode, see docs/unit04.md")
}
