package unit04

// PreTokenizer names a way of splitting text into the words BPE merges
// within. The names are those of tokenizer.ggml.pre (see ParsePre).
type PreTokenizer int

const (
	// PreGPT2 is GPT-2's pattern:
	//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
	PreGPT2 PreTokenizer = iota
	// PreLlama3 is Llama 3's (tiktoken's cl100k) pattern:
	//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
	//   ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
	PreLlama3
	// PreQwen2 is Llama 3's pattern with numbers split one digit at a time
	// (\p{N} instead of \p{N}{1,3}).
	PreQwen2
)

// String returns the canonical tokenizer.ggml.pre name.
func (p PreTokenizer) String() string {
	switch p {
	case PreLlama3:
		return "llama-bpe"
	case PreQwen2:
		return "qwen2"
	}
	return "gpt-2"
}
