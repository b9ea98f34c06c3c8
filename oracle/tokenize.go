package oracle

import (
	"sync"
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

// RegexSplit returns the successive matches of pattern in text (which must
// be valid UTF-8), as substrings of text. Text between matches, which these
// patterns never leave, would be returned as its own piece.
func RegexSplit(pattern, text string) []string {
	re := compiled(pattern)
	// regexp2 reports positions in runes; map them to bytes.
	offsets := make([]int, 0, len(text)+1)
	for i := range text {
		offsets = append(offsets, i)
	}
	offsets = append(offsets, len(text))
	var out []string
	pos := 0
	m, err := re.FindStringMatch(text)
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
