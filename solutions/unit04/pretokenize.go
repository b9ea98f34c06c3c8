package unit04

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/llmforge/forge/unit00"
)

// ParsePre maps a tokenizer.ggml.pre value to its pre-tokenizer, with the
// aliases llama.cpp gives exactly the same behaviour (the table preNames).
// Any other name is an error wrapping unit00.ErrUnsupported; so is an empty
// one (no pre key) or "default": llama.cpp then uses a punctuation-first
// split that this tokenizer does not implement, and guessing GPT-2's would
// silently give other ids. The error lists the canonical names.
func ParsePre(name string) (PreTokenizer, error) {
	for p, names := range preNames {
		if slices.Contains(names, name) {
			return PreTokenizer(p), nil
		}
	}
	known := make([]string, len(preNames))
	for p := range preNames {
		known[p] = PreTokenizer(p).String()
	}
	return 0, fmt.Errorf("pre-tokenizer %q (this tokenizer knows %s, and their aliases): %w",
		name, strings.Join(known, ", "), unit00.ErrUnsupported)
}

// Split cuts text into pre-tokens, the words BPE merges within; joined back
// together they give text exactly. Go's regexp has no lookahead, which the
// patterns need for \s+(?!\S), so each pattern is matched by hand: at each
// position the alternatives are tried in the pattern's order and the first
// that matches wins, exactly as a backtracking regex engine would. Invalid
// UTF-8 bytes count as punctuation.
func (p PreTokenizer) Split(text string) []string {
	return p.AppendSplit(nil, text)
}

// AppendSplit is Split appending to dst; the pieces are substrings of text.
// GPT-2, Llama 3 and Qwen2 are one pattern each; StarCoder, Falcon and the
// two DeepSeeks are lists of expressions, each splitting every piece the
// previous one produced, matches and the text between them alike.
func (p PreTokenizer) AppendSplit(dst []string, text string) []string {
	if p != PreGPT2 && p != PreLlama3 && p != PreQwen2 {
		// A list of expressions (pretokenize_list.go).
		return appendStages(dst, text, preStages[p])
	}
	for i := 0; i < len(text); {
		var n int
		if p == PreGPT2 {
			n = matchGPT2(text[i:])
		} else {
			n = matchLlama3(text[i:], p == PreQwen2)
		}
		dst = append(dst, text[i:i+n])
		i += n
	}
	return dst
}

// Character classes of the patterns.
func isLetter(r rune) bool { return unicode.IsLetter(r) }
func isNumber(r rune) bool { return unicode.IsNumber(r) }
func isSpace(r rune) bool  { return unicode.IsSpace(r) }
func isOther(r rune) bool  { return !isSpace(r) && !isLetter(r) && !isNumber(r) } // [^\s\p{L}\p{N}]
func isNewline(r rune) bool {
	return r == '\r' || r == '\n'
}

// next decodes the rune at the start of s and its width (a lone invalid
// byte is one U+FFFD of width 1; past the end, width 0).
func next(s string) (rune, int) {
	if s == "" {
		return 0, 0
	}
	return utf8.DecodeRuneInString(s)
}

// run returns the byte length of the longest prefix of s whose runes all
// satisfy class.
func run(s string, class func(rune) bool) int {
	n := 0
	for n < len(s) {
		r, w := next(s[n:])
		if !class(r) {
			break
		}
		n += w
	}
	return n
}

// contraction matches 's 't 're 've 'm 'll 'd at the start of s, in ASCII
// letters of any case when fold is set.
func contraction(s string, fold bool) int {
	if len(s) < 2 || s[0] != '\'' {
		return 0
	}
	lower := func(c byte) byte {
		if fold && 'A' <= c && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	switch lower(s[1]) {
	case 's', 't', 'm', 'd':
		return 2
	}
	if len(s) >= 3 {
		switch string([]byte{lower(s[1]), lower(s[2])}) {
		case "re", "ve", "ll":
			return 3
		}
	}
	return 0
}

// optional returns the width of a rune satisfying class at the start of s,
// or 0: the "x?" of a pattern.
func optional(s string, class func(rune) bool) int {
	if r, w := next(s); w > 0 && class(r) {
		return w
	}
	return 0
}

// spaces matches \s+(?!\S) and then \s+: a run of whitespace, less its last
// character when a non-space follows and the run is longer than one (the
// last space then belongs to the next word, as in " world").
func spaces(s string) int {
	n := run(s, isSpace)
	if n == 0 {
		return 0
	}
	if n < len(s) { // a non-space follows
		_, w := utf8.DecodeLastRuneInString(s[:n])
		if n > w {
			return n - w
		}
	}
	return n
}

// matchGPT2 returns the length of the pre-token at the start of s.
func matchGPT2(s string) int {
	if n := contraction(s, false); n > 0 {
		return n
	}
	sp := optional(s, func(r rune) bool { return r == ' ' })
	for _, class := range []func(rune) bool{isLetter, isNumber, isOther} {
		if n := run(s[sp:], class); n > 0 {
			return sp + n
		}
	}
	return spaces(s)
}

// matchLlama3 returns the length of the pre-token at the start of s, with
// digits one at a time when single is set (Qwen2).
func matchLlama3(s string, single bool) int {
	if n := contraction(s, true); n > 0 {
		return n
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+ (no need to retry without the lead: a
	// lead is never a letter, so \p{L}+ cannot start where it stands)
	lead := optional(s, func(r rune) bool { return !isNewline(r) && !isLetter(r) && !isNumber(r) })
	if n := run(s[lead:], isLetter); n > 0 {
		return lead + n
	}
	// \p{N}{1,3}, or \p{N}
	if r, w := next(s); isNumber(r) {
		n, limit := w, 3
		if single {
			limit = 1
		}
		for k := 1; k < limit; k++ {
			r, w := next(s[n:])
			if !isNumber(r) || w == 0 {
				break
			}
			n += w
		}
		return n
	}
	// ?[^\s\p{L}\p{N}]+[\r\n]*
	sp := optional(s, func(r rune) bool { return r == ' ' })
	if n := run(s[sp:], isOther); n > 0 {
		n += sp
		return n + run(s[n:], isNewline)
	}
	// \s*[\r\n]+ : whitespace up to and including its last newline
	ws := run(s, isSpace)
	for k := ws; k > 0; {
		r, w := utf8.DecodeLastRuneInString(s[:k])
		if isNewline(r) {
			return k
		}
		k -= w
	}
	return spaces(s)
}
