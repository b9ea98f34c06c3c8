package unit04

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
)

var preTokenizers = []struct {
	pre     PreTokenizer
	pattern string
}{
	{PreGPT2, oracle.PatternGPT2},
	{PreLlama3, oracle.PatternLlama3},
	{PreQwen2, oracle.PatternQwen2},
}

// splitCases are the strings where the patterns' alternatives meet.
var splitCases = []string{
	"", "a", " a", "  a", "a  ", "a  b", "a \n b", " \n\n x", "x \r\n y", "\n \n", "\t\t\n\t x",
	"it's", "IT'S", "It'Re", "they'VE", "'s", "''s", "x'", "'", "don't",
	"IT'SELF", "'Sa", "YOU'REALLY", "we'LLx", "i'Dk", "'Mx", "'Tis",
	"1", "12", "123", "1234", "1234567", " 1", "  12", "a1", "1a", "½", "x²", "١٢٣",
	"!!", " !!", "!!\n\n", " !!\r\n", "a!b", "(x)", " ?x", "\u00a0x", "\u3000x", "a\u2028b",
	"é", "e\u0301", "👍🏽", "a👍b", "🇫🇷", "日本語", "हिंदी",
}

func checkSplit(t *testing.T, pre PreTokenizer, pattern, s string) bool {
	t.Helper()
	got, want := pre.Split(s), oracle.RegexSplit(pattern, s)
	if strings.Join(got, "") != s {
		t.Errorf("%v.Split(%q) = %q: the pieces must join back into the text", pre, s, got)
		return false
	}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
		t.Errorf("%v.Split(%q)\n got %q\nwant %q (the pattern's matches, by a regex engine with lookahead)", pre, s, got, want)
		return false
	}
	return true
}

func TestC4_2_Split(t *testing.T) {
	c := corpus(t)
	for _, p := range preTokenizers {
		t.Run(p.pre.String(), func(t *testing.T) {
			bad := 0
			for _, s := range append(splitCases, c...) {
				if !checkSplit(t, p.pre, p.pattern, s) {
					if bad++; bad >= 5 {
						t.Fatalf("stopping after %d wrong splits", bad)
					}
				}
			}
		})
	}
}

func TestC4_2_InvalidUTF8(t *testing.T) {
	for _, p := range preTokenizers {
		for _, s := range []string{"\xff", "a\xffb", "\xe2\x82", " \xc3", "12\x80"} {
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
	} {
		if got, err := ParsePre(name); err != nil || got != want {
			t.Errorf("ParsePre(%q) = %v, %v; want %v", name, got, err, want)
		}
	}
	// "" (no pre key) and "default" select llama.cpp's punctuation-first
	// split, which is none of these three: refusing beats wrong ids.
	for _, name := range []string{"deepseek-coder", "", "default"} {
		if _, err := ParsePre(name); !errors.Is(err, unit00.ErrUnsupported) {
			t.Errorf("ParsePre(%q), a pre-tokenizer this tokenizer lacks: error %v, want unit00.ErrUnsupported", name, err)
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
			checkSplit(t, p.pre, p.pattern, s)
		}
	})
}
