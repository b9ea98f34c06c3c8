package unit04

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestC4_2_EdgeSplits checks splits worked out by hand from the patterns
// (pre_given.go), at places the regex-compared tests do not reach: a line
// end followed by more whitespace, a digit run that continues in a non-ASCII
// number, and DeepSeek LLM's symbol ranges next to a character of the CJK
// stage's range, the one place where the symbol stage's edges show.
func TestC4_2_EdgeSplits(t *testing.T) {
	for _, c := range []struct {
		pre  PreTokenizer
		text string
		want []string
		why  string
	}{
		// Llama 3 and Qwen2: \s*[\r\n]+ backtracks to the last line end of
		// the whitespace run, here its first character; the spaces after it
		// are \s+(?!\S) (one space left for the word) or \s+ at the end.
		{PreLlama3, "\n  x", []string{"\n", " ", " x"}, `\s*[\r\n]+ ends at the last \n of the run, even when that is its first character`},
		{PreQwen2, "\n  x", []string{"\n", " ", " x"}, `\s*[\r\n]+ ends at the last \n of the run, even when that is its first character`},
		{PreLlama3, "x\n ", []string{"x", "\n", " "}, `\s*[\r\n]+ takes the \n alone; the space after it is a piece of its own`},
		{PreQwen2, "x\n\t", []string{"x", "\n", "\t"}, `\s*[\r\n]+ takes the \n alone; the tab after it is a piece of its own`},
		// GPT-2 has no [\r\n] alternative: the line end is whitespace like any.
		{PreGPT2, "\n  x", []string{"\n ", " x"}, `GPT-2's \s+(?!\S) keeps the \n with all but the last space`},
		// Falcon: [0-9][0-9][0-9] wants three ASCII digits; ² and ½ are \p{N}
		// (GPT-2's stage keeps them in the number) but not [0-9].
		{PreFalcon, "12²", []string{"12²"}, "1, 2, ² are not three ASCII digits: no group of three"},
		{PreFalcon, "x 12½", []string{"x", " 12½"}, "1, 2, ½ are not three ASCII digits: no group of three"},
		{PreFalcon, "123²", []string{"123", "²"}, "123 is a group of three; ² is what is left"},
		// DeepSeek LLM: \s?[!-/:-~！-／：-～‘-‟　-。]+ and then [ࠀ-一...]+,
		// which splits every curly quote (U+2018–U+201F) and U+3001–U+3002
		// out of the symbol stage's pieces again. Two of them side by side
		// stay one piece only if the symbol stage kept them together.
		{PreDeepSeekLLM, "\u2018\u2019", []string{"\u2018\u2019"}, "U+2018 starts the range ‘-‟: both quotes are one symbol run, then one CJK-range run"},
		{PreDeepSeekLLM, "\u201e\u201f", []string{"\u201e\u201f"}, "U+201F ends the range ‘-‟: both are one symbol run, then one CJK-range run"},
		{PreDeepSeekLLM, "\u2017\u2018", []string{"\u2017", "\u2018"}, "U+2017 is just before the range ‘-‟: the symbol run starts at U+2018"},
		{PreDeepSeekLLM, "\u201f\u2020", []string{"\u201f", "\u2020"}, "U+2020 is just past the range ‘-‟: the symbol run ends at U+201F"},
		{PreDeepSeekLLM, "\u3001\u3002", []string{"\u3001\u3002"}, "U+3001 and U+3002 are both in the range 　-。"},
		{PreDeepSeekLLM, "\u3002\u3003", []string{"\u3002", "\u3003"}, "U+3003 is just past the range 　-。: the symbol run ends at U+3002"},
		{PreDeepSeekLLM, "x\u2018\u201fy", []string{"x", "\u2018\u201f", "y"}, "the quotes between two letters are one piece"},
	} {
		if got := c.pre.Split(c.text); !cmp.Equal(got, c.want) {
			t.Errorf("%v.Split(%q) = %q, want %q: %s", c.pre, c.text, got, c.want, c.why)
		}
	}
}
