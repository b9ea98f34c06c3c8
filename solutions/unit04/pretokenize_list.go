package unit04

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A stage is one expression of a pre-tokenizer list: the byte length of its
// match at the start of s, or 0 when it does not match there. s ends where
// the piece being split ends, so for the stage the piece's end is the end of
// the text: \s+(?!\S) and $ hold there even when more text follows.
type stage func(s string) int

// preStages are llama.cpp's lists of expressions, one stage each, in order.
var preStages = map[PreTokenizer][]stage{
	PreStarCoder:     {oneNumber, matchGPT2},
	PreFalcon:        {falconPunct, matchGPT2, threeDigits},
	PreDeepSeekCoder: {newline, spaceLetters, spacePunct, cjk, oneNumber},
	PreDeepSeekLLM:   {newline, spaceCasedLetters, spaceSymbols, trailingSpaces, cjk, numbers},
}

// appendStages splits piece with the first stage and hands each resulting
// piece, match or not, to the rest of the list, depth first, so no stage
// needs a slice of its own. A stage is tried at each character in turn, as a
// regex search finds the leftmost match; the unmatched text between two
// matches is one piece. An empty list keeps the piece whole.
func appendStages(dst []string, piece string, stages []stage) []string {
	if len(stages) == 0 {
		return append(dst, piece)
	}
	match, rest := stages[0], stages[1:]
	gap := 0 // where the unmatched text began
	for i := 0; i < len(piece); {
		if n := match(piece[i:]); n > 0 {
			if gap < i {
				dst = appendStages(dst, piece[gap:i], rest)
			}
			dst = appendStages(dst, piece[i:i+n], rest)
			i += n
			gap = i
			continue
		}
		_, w := utf8.DecodeRuneInString(piece[i:])
		i += w
	}
	if gap < len(piece) {
		dst = appendStages(dst, piece[gap:], rest)
	}
	return dst
}

// oneNumber is \p{N}: one number character.
func oneNumber(s string) int { return optional(s, isNumber) }

// numbers is \p{N}+.
func numbers(s string) int { return run(s, isNumber) }

// newline is [\r\n]: one line-end character.
func newline(s string) int { return optional(s, isNewline) }

// falconPunct is [\p{P}$+<=>^~|`]+: punctuation and the ASCII symbols that
// read as operators.
func falconPunct(s string) int {
	return run(s, func(r rune) bool { return unicode.IsPunct(r) || strings.ContainsRune("$+<=>^~|`", r) })
}

// threeDigits is [0-9][0-9][0-9]: ASCII digits only, \p{N} is not asked.
func threeDigits(s string) int {
	if len(s) >= 3 && isDigit(s[0]) && isDigit(s[1]) && isDigit(s[2]) {
		return 3
	}
	return 0
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// spaceRun matches \s?X+ for a class X: a whitespace character may lead the
// run, but only if the run follows it. No retry without the lead is needed:
// whitespace is in none of the classes, so X+ cannot start on it.
func spaceRun(s string, class func(rune) bool) int {
	lead := optional(s, isSpace)
	if n := run(s[lead:], class); n > 0 {
		return lead + n
	}
	return 0
}

// spaceLetters is \s?\p{L}+, spacePunct \s?\p{P}+.
func spaceLetters(s string) int { return spaceRun(s, isLetter) }
func spacePunct(s string) int   { return spaceRun(s, unicode.IsPunct) }

// spaceCasedLetters is DeepSeek LLM's \s?[A-Za-zµÀ-Ö…]+, with its class
// written out as DeepSeekLLMLetters.
func spaceCasedLetters(s string) int {
	return spaceRun(s, func(r rune) bool { return unicode.Is(DeepSeekLLMLetters, r) })
}

// spaceSymbols is DeepSeek LLM's \s?[!-/:-~！-／：-～‘-‟　-。]+: ASCII
// punctuation and symbols (and, through :-~, the ASCII letters), their
// full-width forms, curly quotes, and the ideographic comma and full stop.
// U+3000 starts the last range, but it is whitespace: llama.cpp's regex sees
// every non-ASCII space as \v, which the class does not hold.
func spaceSymbols(s string) int {
	return spaceRun(s, func(r rune) bool {
		return '!' <= r && r <= '/' || ':' <= r && r <= '~' ||
			0xFF01 <= r && r <= 0xFF0F || 0xFF1A <= r && r <= 0xFF5E ||
			0x2018 <= r && r <= 0x201F || 0x3001 <= r && r <= 0x3002
	})
}

// trailingSpaces is \s+$: whitespace that runs to the end of the piece.
func trailingSpaces(s string) int {
	if n := run(s, isSpace); n == len(s) {
		return n
	}
	return 0
}

// cjk is [一-龥ࠀ-一가-퟿]+: U+0800 to U+9FA5 (most scripts after Arabic,
// the CJK symbols, kana and ideographs) and U+AC00 to U+D7FF (Hangul), less
// the whitespace among them (U+1680, U+2000–U+200A, U+3000, ...), which
// llama.cpp's regex sees as \v.
func cjk(s string) int {
	return run(s, func(r rune) bool {
		return (0x0800 <= r && r <= 0x9FA5 || 0xAC00 <= r && r <= 0xD7FF) && !isSpace(r)
	})
}
