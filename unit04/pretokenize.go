package unit04

// ParsePre maps a tokenizer.ggml.pre value to its pre-tokenizer, with the
// aliases llama.cpp gives exactly the same behaviour (the table preNames in
// pre_given.go). Any other name is an error wrapping unit00.ErrUnsupported
// that lists the canonical names; so is an empty one (no pre key) or
// "default": llama.cpp then uses a punctuation-first split that this
// tokenizer does not implement, and guessing GPT-2's would silently give
// other ids.
func ParsePre(name string) (PreTokenizer, error) {
	panic("TODO(4.2): write ParsePre, see docs/unit04.md")
}

// Split cuts text into pre-tokens, the words BPE merges within; joined back
// together they give text exactly. Go's regexp has no lookahead, which the
// patterns need for \s+(?!\S), so each pattern is matched by hand: at each
// position the alternatives are tried in the pattern's order and the first
// that matches wins, exactly as a backtracking regex engine would. Invalid
// UTF-8 bytes count as punctuation.
func (p PreTokenizer) Split(text string) []string {
	panic("TODO(4.2): write PreTokenizer.Split, see docs/unit04.md")
}

// AppendSplit is Split appending to dst; the pieces are substrings of text.
// GPT-2, Llama 3 and Qwen2 are one pattern each; StarCoder, Falcon and the
// two DeepSeeks are lists of expressions, each splitting every piece the
// previous one produced, matches and the text between them alike.
func (p PreTokenizer) AppendSplit(dst []string, text string) []string {
	panic("TODO(4.2): write PreTokenizer.AppendSplit, see docs/unit04.md")
}
