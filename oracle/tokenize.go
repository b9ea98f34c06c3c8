package oracle

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// The pre-tokenizer patterns, as the models' reference tokenizers write them.
// regexp2 is a backtracking engine with lookahead, so it runs them as
// written: the independent check of hand-written splitters.
const (
	PatternGPT2   = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
	PatternLlama3 = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	PatternQwen2  = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// patternGPT2LlamaCpp is GPT-2's pattern as llama.cpp lists it, without the
// final |\s+: in a list that changes nothing, since a lone space it leaves
// unmatched becomes a piece anyway.
const patternGPT2LlamaCpp = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)`

// The pre-tokenizers that llama.cpp writes as lists of expressions
// (src/llama-vocab.cpp, one list per LLAMA_VOCAB_PRE_TYPE_*), as the models'
// tokenizers write them: each applies to the pieces the one before produced
// (LlamaCppSplit).
var (
	PatternsStarCoder     = []string{`\p{N}`, patternGPT2LlamaCpp}
	PatternsFalcon        = []string{"[\\p{P}\\$\\+<=>\\^~\\|`]+", patternGPT2LlamaCpp, `[0-9][0-9][0-9]`}
	PatternsDeepSeekCoder = []string{"[\r\n]", `\s?\p{L}+`, `\s?\p{P}+`, patternCJK, `\p{N}`}
	PatternsDeepSeekLLM   = []string{
		"[\r\n]",
		"\\s?[A-Za-z\u00B5\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u01BA\u01BC-\u01BF\u01C4-\u0293\u0295-\u02AF\u0370-\u0373\u0376\u0377\u037B-\u037D\u037F\u0386\u0388-\u038A\u038C\u038E-\u03A1\u03A3-\u03F5\u03F7-\u0481\u048A-\u052F\u0531-\u0556" +
			"\u10A0-\u10C5\u13A0-\u13F5\u13F8-\u13FD\u1C90-\u1CBA\u1CBD-\u1CBF\u1D00-\u1D2B\u1D6B-\u1D77\u1D79-\u1D9A\u1E00-\u1F15\u1F18-\u1F1D\u1F20-\u1F45\u1F48-\u1F4D\u1F50-\u1F57\u1F59\u1F5B\u1F5D\u1F5F-\u1F7D\u1F80-\u1FB4\u1FB6-\u1FBC\u1FBE" +
			"\u1FC2-\u1FC4\u1FC6-\u1FCC\u1FD0-\u1FD3\u1FD6-\u1FDB\u1FE0-\u1FEC\u1FF2-\u1FF4\u1FF6-\u1FFC\u2102\u2107\u210A-\u2113\u2115\u2119-\u211D\u2124\u2126\u2128\u212A-\u212D\u212F-\u2134\u2139\u213C-\u213F\u2145-\u2149\u214E\u2183\u2184" +
			"\u2C00-\u2C7B\u2C7E-\u2CE4\u2CEB-\u2CEE\u2CF2\u2CF3\uA640-\uA66D\uA680-\uA69B\uA722-\uA76F\uA771-\uA787\uA78B-\uA78E\uAB70-\uABBF\uFB00-\uFB06\uFB13-\uFB17\uFF21-\uFF3A\uFF41-\uFF5A" +
			"\U00010400-\U0001044F\U000104B0-\U000104D3\U000104D8-\U000104FB\U00010C80-\U00010CB2\U00010CC0-\U00010CF2\U000118A0-\U000118DF\U0001E900-\U0001E943]+",
		"\\s?[!-/:-~\uFF01-\uFF0F\uFF1A-\uFF5E\u2018-\u201F\u3000-\u3002]+",
		`\s+$`,
		patternCJK,
		`\p{N}+`,
	}
)

// patternCJK is [一-龥ࠀ-一가-퟿]+ of both DeepSeek lists. The lists' non-ASCII
// characters are written as escapes: an editor that normalises Unicode
// would turn some of them (U+1F7D, U+2126, U+212A, ...) into others and
// change the classes.
const patternCJK = "[\u4E00-\u9FA5\u0800-\u4E00\uAC00-\uD7FF]+"

// LlamaCppSplit splits text (valid UTF-8) the way llama.cpp's
// unicode_regex_split does with a list of expressions: the first splits the
// text, each next one splits every piece the previous produced, and both the
// matches and the unmatched text between them are pieces. Each piece is
// matched on its own, so its end is the end of the text for $ and (?!\S).
// Like llama.cpp, an expression without a \p{..} class sees every non-ASCII
// whitespace character as \v (C++'s regex \s would not match them), so its
// literal ranges never match one: U+3000 lies in [ࠀ-一] yet stays whitespace.
// A backtracking engine's $ would also match before a final \n; no piece
// that reaches \s+$ has one, since [\r\n] splits every line end off first.
func LlamaCppSplit(exprs []string, text string) []string {
	pieces := []string{text}
	if text == "" {
		pieces = nil
	}
	for _, expr := range exprs {
		var next []string
		for _, p := range pieces {
			seen := p
			if !strings.Contains(expr, `\p{`) {
				seen = strings.Map(func(r rune) rune {
					if r > 0x7F && unicode.IsSpace(r) {
						return '\v'
					}
					return r
				}, p)
			}
			next = append(next, regexPieces(compiled(expr), seen, p)...)
		}
		pieces = next
	}
	return pieces
}

// RegexSplit returns the successive matches of pattern in text (which must
// be valid UTF-8), as substrings of text. Text between matches, which these
// patterns never leave, would be returned as its own piece.
func RegexSplit(pattern, text string) []string {
	return regexPieces(compiled(pattern), text, text)
}

// regexPieces matches re in seen, which has the same characters as text
// one for one, and returns the matches and the text between them as
// substrings of text.
func regexPieces(re *regexp2.Regexp, seen, text string) []string {
	// regexp2 reports positions in runes; map them to bytes.
	offsets := make([]int, 0, len(text)+1)
	for i := range text {
		offsets = append(offsets, i)
	}
	offsets = append(offsets, len(text))
	var out []string
	pos := 0
	m, err := re.FindStringMatch(seen)
	for ; err == nil && m != nil; m, err = re.FindNextMatch(m) {
		start, end := offsets[m.Index], offsets[m.Index+m.Length]
		if start > pos {
			out = append(out, text[pos:start])
		}
		out = append(out, text[start:end])
		pos = end
	}
	if err != nil {
		panic(err)
	}
	if pos < len(text) {
		out = append(out, text[pos:])
	}
	return out
}

// NaiveBPE merges symbols by rank in the most literal way: find every
// adjacent pair's rank, merge the lowest (the leftmost among equals), start
// again, until no pair has a rank. rank returns false for pairs that never
// merge.
func NaiveBPE(rank func(left, right string) (int, bool), symbols []string) []string {
	syms := append([]string(nil), symbols...)
	for {
		best := -1
		bestRank := 0
		for i := 0; i+1 < len(syms); i++ {
			if r, ok := rank(syms[i], syms[i+1]); ok && (best == -1 || r < bestRank) {
				best, bestRank = i, r
			}
		}
		if best == -1 {
			return syms
		}
		merged := syms[best] + syms[best+1]
		syms = append(append(append([]string(nil), syms[:best]...), merged), syms[best+2:]...)
	}
}

// Runes splits s into its characters, as strings.
func Runes(s string) []string {
	var out []string
	for len(s) > 0 {
		_, w := utf8.DecodeRuneInString(s)
		out = append(out, s[:w])
		s = s[w:]
	}
	return out
}

// patterns caches compiled patterns: fuzzers split millions of strings.
var patterns sync.Map // string → *regexp2.Regexp

func compiled(pattern string) *regexp2.Regexp {
	if re, ok := patterns.Load(pattern); ok {
		return re.(*regexp2.Regexp)
	}
	re, _ := patterns.LoadOrStore(pattern, regexp2.MustCompile(pattern, regexp2.None))
	return re.(*regexp2.Regexp)
}
