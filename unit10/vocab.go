package unit10

import (
	"github.com/llmforge/forge/unit04"
)

// LoadVocab reads the tokenizer.ggml.* metadata into a unit04.Vocab, with
// unit04.ReadVocab's rules for absent keys: ids −1, AddBOS and
// AddSpacePrefix true for a "llama" (SentencePiece) vocabulary. The token
// list is required and not empty; scores and token types, when present,
// must have one entry per token; an array of the wrong length is an error
// wrapping unit00.ErrInvalid that names that array and both lengths (in a
// model, token_embd's row count is the length the arrays must have; in a
// vocabulary-only file, the length the other arrays agree on), never
// another array. A bos, eos or unknown token id, when present, must name a
// token (be below the number of tokens): one that does not is an error
// wrapping unit00.ErrInvalid that names the key. Any other key, when
// present, must have its type (a
// tokenizer.ggml.add_bos_token stored as an integer is an error naming
// the key, not an absent flag), as unit04.ReadVocab requires.
func LoadVocab(f *File) (*unit04.Vocab, error) {
	panic("TODO(10.4): write LoadVocab, see docs/unit10.md")
}
