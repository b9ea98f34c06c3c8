package unit04

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestC4_5_Decode(t *testing.T) {
	for _, name := range []string{"gpt-2", "phi-3"} {
		tk := newTokenizer(t, name)
		for _, c := range llamaCpp(t, name) {
			if name == "phi-3" && strings.Contains(c.Text, "\u2581") {
				continue // SentencePiece reads a literal ▁ as a space: it cannot come back
			}
			if got := tk.Decode(c.IDs); got != c.Text {
				t.Errorf("%s: Decode(%v) = %q, want %q", name, c.IDs, got, c.Text)
			}
		}
	}
	tk := newTokenizer(t, "phi-3")
	if got := tk.Decode([]int{1, 15043, 32000}); got != "Hello" {
		t.Errorf("phi-3: Decode([<s> ▁Hello <|endoftext|>]) = %q, want %q (control tokens stand for no text; the space prefix goes)", got, "Hello")
	}
	if got := tk.Decode([]int{29871, 15043}); got != " Hello" {
		t.Errorf("phi-3: Decode([▁ ▁Hello]) = %q, want %q (only the one prefix space is removed)", got, " Hello")
	}
	if got := string(tk.TokenBytes(0x41 + 3)); got != "A" {
		t.Errorf("TokenBytes(<0x41>) = %q, want %q", got, "A")
	}
	if got := tk.TokenBytes(-1); got != nil {
		t.Errorf("TokenBytes(-1) = %q, want nil", got)
	}
	g := newTokenizer(t, "gpt-2")
	if got := string(g.TokenBytes(220)); got != " " {
		t.Errorf("gpt-2: TokenBytes(220 'Ġ') = %q, want a space", got)
	}
}

// TestC4_5_Stream feeds ids one at a time and checks that no chunk ever
// holds a broken UTF-8 sequence, while the chunks add up to the text.
func TestC4_5_Stream(t *testing.T) {
	texts := []string{"🫠 melts", "Größe 😀👍🏽 日本語", "👨‍👩‍👧‍👦 family", "ok"}
	for _, name := range []string{"gpt-2", "phi-3"} {
		tk := newTokenizer(t, name)
		for _, text := range texts {
			ids := tk.Encode(text, EncodeOptions{AddSpecial: true})
			s := tk.NewStream()
			var out strings.Builder
			for i, id := range ids {
				chunk := s.Next(id)
				if !utf8.ValidString(chunk) {
					t.Fatalf("%s %q: after token %d the stream gave %q, a broken UTF-8 sequence: hold back the bytes of an unfinished character", name, text, i, chunk)
				}
				out.WriteString(chunk)
			}
			out.WriteString(s.Flush())
			if out.String() != text {
				t.Errorf("%s: streamed %q, want %q", name, out.String(), text)
			}
		}
	}
	// A character cut off at the end is handed out by Flush as it is.
	tk := newTokenizer(t, "phi-3")
	s := tk.NewStream()
	if got := s.Next(0xF0+3) + s.Next(0x9F+3); got != "" {
		t.Errorf("two bytes of a four-byte character came out early: %q", got)
	}
	if got := s.Flush(); got != "\xf0\x9f" {
		t.Errorf("Flush() = %q, want the two held bytes", got)
	}
}
