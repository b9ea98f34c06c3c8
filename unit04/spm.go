package unit04

// appendSPM appends the ids of text (a fragment, with any space prefix
// already added) under SentencePiece-style BPE: spaces become ▁ (U+2581),
// the text starts as its UTF-8 characters, the adjacent pair whose join is
// a token with the highest score merges first (the leftmost on a tie),
// until no pair joins into a token; a final symbol that is not a token
// falls back to its bytes as <0xXX> tokens (a byte without one: the token
// whose text is that single byte, if any, as llama.cpp does). A character's
// length comes from its lead byte, cut short where the text ends; an invalid
// lead byte is a character of one byte. Encode calls it for "llama"
// vocabularies.
func (t *Tokenizer) appendSPM(out []int, text string) []int {
	panic("TODO(4.4): write appendSPM, see docs/unit04.md")
}
