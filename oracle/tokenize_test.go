package oracle

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLlamaCppSplit pins the list mechanism on cases worked out by hand from
// llama.cpp's unicode_regex_split: every expression splits every piece, a
// piece's end is the text's end for (?!\S) and $, and an expression without
// \p{..} sees non-ASCII spaces as \v.
func TestLlamaCppSplit(t *testing.T) {
	for _, c := range []struct {
		name  string
		exprs []string
		text  string
		want  []string
	}{
		{"starcoder digits alone", PatternsStarCoder, "ab 12", []string{"ab", " ", "1", "2"}},
		// "a  " ends its piece, so \s+(?!\S) takes both spaces.
		{"starcoder piece end", PatternsStarCoder, "a  1", []string{"a", "  ", "1"}},
		{"falcon threes", PatternsFalcon, "x 12345", []string{"x", " ", "123", "45"}},
		{"falcon operators", PatternsFalcon, "a+=b's", []string{"a", "+=", "b", "'", "s"}},
		{"deepseek-coder CJK after space", PatternsDeepSeekCoder, "a 日本", []string{"a", " ", "日本"}},
		// \s?\p{L}+ gives "\u3000本"; [一-龥ࠀ-一가-퟿]+ then leaves U+3000 out
		// (it would keep the piece whole if it took it).
		{"deepseek-coder U+3000 stays out", PatternsDeepSeekCoder, "日\u3000本", []string{"日", "\u3000", "本"}},
		{"deepseek-llm trailing spaces", PatternsDeepSeekLLM, "ab 12  ", []string{"ab", " ", "12", "  "}},
		{"deepseek-llm lines", PatternsDeepSeekLLM, "a\r\nb", []string{"a", "\r", "\n", "b"}},
		{"empty", PatternsFalcon, "", nil},
	} {
		if diff := cmp.Diff(c.want, LlamaCppSplit(c.exprs, c.text)); diff != "" {
			t.Errorf("%s: LlamaCppSplit(%q) (-want +got):\n%s", c.name, c.text, diff)
		}
	}
}
