package unit04

import (
	"fmt"
	"unicode"
)

// PreTokenizer names a way of splitting text into the words BPE merges
// within. The names are those of tokenizer.ggml.pre (see ParsePre).
type PreTokenizer int

// The first three are one pattern each. The others are llama.cpp's lists of
// expressions: each expression of the list splits every piece the previous
// one produced, and both its matches and the text between them become pieces
// (a piece's end counts as the end of the text for $ and (?!\S)).
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
	// PreStarCoder is the list
	//   \p{N}
	//   GPT-2's pattern
	// every digit alone, the text between digits split as GPT-2 does.
	PreStarCoder
	// PreFalcon is the list
	//   [\p{P}$+<=>^~|`]+
	//   GPT-2's pattern
	//   [0-9][0-9][0-9]
	// runs of punctuation first, then GPT-2's split, then ASCII digit runs
	// cut into threes from the left.
	PreFalcon
	// PreDeepSeekCoder is the list
	//   [\r\n]
	//   \s?\p{L}+
	//   \s?\p{P}+
	//   [一-龥ࠀ-一가-퟿]+     (U+0800–U+9FA5 and U+AC00–U+D7FF, no whitespace)
	//   \p{N}
	PreDeepSeekCoder
	// PreDeepSeekLLM is the list
	//   [\r\n]
	//   \s?[DeepSeekLLMLetters]+
	//   \s?[!-/:-~！-／：-～‘-‟　-。]+   (ASCII !-/ and :-~, U+FF01–U+FF0F,
	//                                  U+FF1A–U+FF5E, U+2018–U+201F, U+3001–U+3002)
	//   \s+$
	//   [一-龥ࠀ-一가-퟿]+
	//   \p{N}+
	PreDeepSeekLLM
)

// preNames holds the tokenizer.ggml.pre values of each pre-tokenizer, its
// canonical name first, grouped as llama.cpp groups them: the names for
// which llama.cpp splits with the same expressions and sets no flag that
// changes the ids. It is the one list of names; ParsePre and String read it.
var preNames = [...][]string{
	PreGPT2:   {"gpt-2", "phi-2", "mpt", "olmo"},
	PreLlama3: {"llama-bpe", "llama3", "llama-v3", "falcon3", "pixtral"},
	PreQwen2:  {"qwen2", "deepseek-r1-qwen", "megrez"},
	PreStarCoder: {"starcoder", "refact", "command-r", "smollm", "codeshell",
		"exaone", "minerva-7b", "mellum2"},
	PreFalcon:        {"falcon"},
	PreDeepSeekCoder: {"deepseek-coder"},
	PreDeepSeekLLM:   {"deepseek-llm"},
}

// String returns the canonical tokenizer.ggml.pre name.
func (p PreTokenizer) String() string {
	if p < 0 || int(p) >= len(preNames) {
		return fmt.Sprintf("PreTokenizer(%d)", int(p))
	}
	return preNames[p][0]
}

// DeepSeekLLMLetters is the letter class of DeepSeek LLM's second
// expression, 84 ranges once adjacent ones are merged: the cased letters
// (upper, lower and title case) of Latin, Greek, Cyrillic, Armenian,
// Georgian, Cherokee, Glagolitic, Coptic, Deseret and a few more scripts, as
// Unicode assigned them when the tokenizer was made. Letters of scripts
// without case (Han, Arabic, Devanagari, ...) are not in it.
var DeepSeekLLMLetters = &unicode.RangeTable{
	R16: []unicode.Range16{
		{0x0041, 0x005a, 1}, {0x0061, 0x007a, 1}, {0x00b5, 0x00b5, 1}, {0x00c0, 0x00d6, 1},
		{0x00d8, 0x00f6, 1}, {0x00f8, 0x01ba, 1}, {0x01bc, 0x01bf, 1}, {0x01c4, 0x0293, 1},
		{0x0295, 0x02af, 1}, {0x0370, 0x0373, 1}, {0x0376, 0x0377, 1}, {0x037b, 0x037d, 1},
		{0x037f, 0x037f, 1}, {0x0386, 0x0386, 1}, {0x0388, 0x038a, 1}, {0x038c, 0x038c, 1},
		{0x038e, 0x03a1, 1}, {0x03a3, 0x03f5, 1}, {0x03f7, 0x0481, 1}, {0x048a, 0x052f, 1},
		{0x0531, 0x0556, 1}, {0x10a0, 0x10c5, 1}, {0x13a0, 0x13f5, 1}, {0x13f8, 0x13fd, 1},
		{0x1c90, 0x1cba, 1}, {0x1cbd, 0x1cbf, 1}, {0x1d00, 0x1d2b, 1}, {0x1d6b, 0x1d77, 1},
		{0x1d79, 0x1d9a, 1}, {0x1e00, 0x1f15, 1}, {0x1f18, 0x1f1d, 1}, {0x1f20, 0x1f45, 1},
		{0x1f48, 0x1f4d, 1}, {0x1f50, 0x1f57, 1}, {0x1f59, 0x1f59, 1}, {0x1f5b, 0x1f5b, 1},
		{0x1f5d, 0x1f5d, 1}, {0x1f5f, 0x1f7d, 1}, {0x1f80, 0x1fb4, 1}, {0x1fb6, 0x1fbc, 1},
		{0x1fbe, 0x1fbe, 1}, {0x1fc2, 0x1fc4, 1}, {0x1fc6, 0x1fcc, 1}, {0x1fd0, 0x1fd3, 1},
		{0x1fd6, 0x1fdb, 1}, {0x1fe0, 0x1fec, 1}, {0x1ff2, 0x1ff4, 1}, {0x1ff6, 0x1ffc, 1},
		{0x2102, 0x2102, 1}, {0x2107, 0x2107, 1}, {0x210a, 0x2113, 1}, {0x2115, 0x2115, 1},
		{0x2119, 0x211d, 1}, {0x2124, 0x2124, 1}, {0x2126, 0x2126, 1}, {0x2128, 0x2128, 1},
		{0x212a, 0x212d, 1}, {0x212f, 0x2134, 1}, {0x2139, 0x2139, 1}, {0x213c, 0x213f, 1},
		{0x2145, 0x2149, 1}, {0x214e, 0x214e, 1}, {0x2183, 0x2184, 1}, {0x2c00, 0x2c7b, 1},
		{0x2c7e, 0x2ce4, 1}, {0x2ceb, 0x2cee, 1}, {0x2cf2, 0x2cf3, 1}, {0xa640, 0xa66d, 1},
		{0xa680, 0xa69b, 1}, {0xa722, 0xa76f, 1}, {0xa771, 0xa787, 1}, {0xa78b, 0xa78e, 1},
		{0xab70, 0xabbf, 1}, {0xfb00, 0xfb06, 1}, {0xfb13, 0xfb17, 1}, {0xff21, 0xff3a, 1},
		{0xff41, 0xff5a, 1},
	},
	R32: []unicode.Range32{
		{0x10400, 0x1044f, 1}, {0x104b0, 0x104d3, 1}, {0x104d8, 0x104fb, 1}, {0x10c80, 0x10cb2, 1},
		{0x10cc0, 0x10cf2, 1}, {0x118a0, 0x118df, 1}, {0x1e900, 0x1e943, 1},
	},
	LatinOffset: 5,
}
