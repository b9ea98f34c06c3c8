package unit04

import (
	"errors"
	"fmt"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
)

// preTokenizers pairs each pre-tokenizer with its expressions as the models'
// tokenizers write them: one pattern, or llama.cpp's list of expressions.
var preTokenizers = []struct {
	pre   PreTokenizer
	exprs []string
}{
	{PreGPT2, []string{oracle.PatternGPT2}},
	{PreLlama3, []string{oracle.PatternLlama3}},
	{PreQwen2, []string{oracle.PatternQwen2}},
	{PreStarCoder, oracle.PatternsStarCoder},
	{PreFalcon, oracle.PatternsFalcon},
	{PreDeepSeekCoder, oracle.PatternsDeepSeekCoder},
	{PreDeepSeekLLM, oracle.PatternsDeepSeekLLM},
}

// regexSplit is the split of the regex engine: the pattern's matches, or
// for a list, llama.cpp's piece-by-piece application of its expressions.
func regexSplit(exprs []string, s string) []string {
	if len(exprs) == 1 {
		return oracle.RegexSplit(exprs[0], s)
	}
	return oracle.LlamaCppSplit(exprs, s)
}

// splitCases are the strings where the patterns' alternatives meet.
var splitCases = []string{
	"", "a", " a", "  a", "a  ", "a  b", "a \n b", " \n\n x", "x \r\n y", "\n \n", "\t\t\n\t x",
	"it's", "IT'S", "It'Re", "they'VE", "'s", "''s", "x'", "'", "don't",
	"IT'SELF", "'Sa", "YOU'REALLY", "we'LLx", "i'Dk", "'Mx", "'Tis",
	"1", "12", "123", "1234", "1234567", " 1", "  12", "a1", "1a", "½", "x²", "١٢٣",
	"!!", " !!", "!!\n\n", " !!\r\n", "a!b", "(x)", " ?x", "\u00a0x", "\u3000x", "a\u2028b",
	"é", "e\u0301", "👍🏽", "a👍b", "🇫🇷", "日本語", "हिंदी",
	// Where the lists of expressions meet: digits against the text around
	// them, operators, line ends, trailing spaces, CJK after a space.
	"a 1", "a  1", " 12345", "\t1234x", "x=1+2", "1,234.5", "a<=b", "`x`|$y^~", "12345678",
	"x ", "a \n", "ab  ", "\r\n", "a\r\nb", "  \n", " \r\n x",
	"日本 語", " 日本", "abc日本", "한국어 텍스트", "\u3000日本", "x\u3000", "€5", "a…b",
	"µ", "Ａｂｃ！", "‘quoted’", "、。", "١٢٣٤", "𐐀𐐨 x", "ſ", "ǅ", "ƻx",
}

// checkSplit compares pre.Split(s) with the regex engine's split.
func checkSplit(t *testing.T, pre PreTokenizer, exprs []string, s string) bool {
	t.Helper()
	got, want := pre.Split(s), regexSplit(exprs, s)
	if strings.Join(got, "") != s {
		t.Errorf("%v.Split(%q) = %q: the pieces must join back into the text", pre, s, got)
		return false
	}
	if diff := cmp.Diff(want, got); diff != "" {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		first := fmt.Sprintf("piece %d: got %s, want %s", i, piece(got, i), piece(want, i))
		t.Errorf("%v.Split(%q): first difference at %s\n(-want by a regex engine with lookahead, +got):\n%s", pre, s, first, diff)
		return false
	}
	return true
}

// piece quotes pieces[i], or says there is none.
func piece(pieces []string, i int) string {
	if i < len(pieces) {
		return fmt.Sprintf("%q", pieces[i])
	}
	return "nothing (the split ended)"
}

func TestC4_2_Split(t *testing.T) {
	c := corpus(t)
	for _, p := range preTokenizers {
		t.Run(p.pre.String(), func(t *testing.T) {
			bad := 0
			for _, s := range append(splitCases, c...) {
				if !checkSplit(t, p.pre, p.exprs, s) {
					if bad++; bad >= 5 {
						t.Fatalf("stopping after %d wrong splits", bad)
					}
				}
			}
		})
	}
}

// classEdges lists, for the expressions Go's regexp/syntax can parse (those
// without lookahead), the first and last character
// of every range in their character classes and the characters just outside
// them, sorted: where a hand-written class test is most easily off by one.
func classEdges(t *testing.T, exprs []string) []rune {
	t.Helper()
	seen := map[rune]bool{}
	var walk func(re *syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		if re.Op == syntax.OpCharClass {
			for i := 0; i+1 < len(re.Rune); i += 2 {
				for _, r := range []rune{re.Rune[i] - 1, re.Rune[i], re.Rune[i+1], re.Rune[i+1] + 1} {
					if r > 0 && utf8.ValidRune(r) {
						seen[r] = true
					}
				}
			}
		}
		for _, sub := range re.Sub {
			walk(sub)
		}
	}
	for _, e := range exprs {
		re, err := syntax.Parse(e, syntax.Perl)
		if err == nil {
			walk(re)
		}
	}
	out := make([]rune, 0, len(seen))
	for r := range seen {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// TestC4_2_ClassEdges splits, for every character at the edge of a range of
// a pre-tokenizer's classes, a text that puts it beside a symbol, a space, a
// letter and a digit, so that a range off by one in any stage changes where
// a piece ends.
func TestC4_2_ClassEdges(t *testing.T) {
	for _, p := range preTokenizers {
		edges := classEdges(t, p.exprs)
		if len(edges) == 0 {
			continue
		}
		t.Run(p.pre.String(), func(t *testing.T) {
			bad := 0
			for _, r := range edges {
				s := fmt.Sprintf("!%c! %cx%c1%c", r, r, r, r)
				if !checkSplit(t, p.pre, p.exprs, s) {
					if bad++; bad >= 5 {
						t.Fatalf("stopping after %d wrong splits (texts built around characters at the edges of the classes: %U and its neighbours)", bad, r)
					}
				}
			}
		})
	}
}

func TestC4_2_InvalidUTF8(t *testing.T) {
	for _, p := range preTokenizers {
		for _, s := range []string{"\xff", "a\xffb", "\xe2\x82", " \xc3", "12\x80", "1\xff234", "\r\xff\n"} {
			got := p.pre.Split(s)
			if strings.Join(got, "") != s {
				t.Errorf("%v.Split(%q) = %q: invalid bytes must pass through untouched", p.pre, s, got)
			}
		}
	}
}

func TestC4_2_ParsePre(t *testing.T) {
	for name, want := range map[string]PreTokenizer{
		"gpt-2": PreGPT2, "llama-bpe": PreLlama3, "llama3": PreLlama3, "qwen2": PreQwen2,
		"starcoder": PreStarCoder, "refact": PreStarCoder, "command-r": PreStarCoder, "smollm": PreStarCoder,
		"falcon": PreFalcon, "deepseek-coder": PreDeepSeekCoder, "deepseek-llm": PreDeepSeekLLM,
	} {
		if got, err := ParsePre(name); err != nil || got != want {
			t.Errorf("ParsePre(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	// "" (no pre key) and "default" select llama.cpp's punctuation-first
	// split, which is none of these: refusing beats wrong ids. The error
	// names every pre-tokenizer there is, so a user sees what would work.
	for _, name := range []string{"deepseek-v3", "tekken", "", "default"} {
		_, err := ParsePre(name)
		if !errors.Is(err, unit00.ErrUnsupported) {
			t.Errorf("ParsePre(%q), a pre-tokenizer this tokenizer lacks: error %v, want unit00.ErrUnsupported", name, err)
			continue
		}
		for p := range preNames {
			if name := PreTokenizer(p).String(); !strings.Contains(err.Error(), name) {
				t.Errorf("ParsePre's error %q does not name %q: list every supported pre-tokenizer", err, name)
			}
		}
	}
}

// FuzzSplit compares every splitter with the regex engine on arbitrary
// valid UTF-8 (go test -fuzz FuzzSplit ./unit04).
func FuzzSplit(f *testing.F) {
	for _, s := range splitCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			for _, p := range preTokenizers {
				if strings.Join(p.pre.Split(s), "") != s {
					t.Fatalf("%v.Split(%q) lost bytes", p.pre, s)
				}
			}
			return
		}
		for _, p := range preTokenizers {
			checkSplit(t, p.pre, p.exprs, s)
		}
	})
}
