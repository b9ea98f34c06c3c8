package unit04

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmforge/forge/oracle"
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

// TestC4_5_TokenTypes checks TokenBytes for every token type in both
// families, and ids at and past the ends of the vocabulary.
func TestC4_5_TokenTypes(t *testing.T) {
	bl := toyByteVocab("gpt-2", nil, "<u>", "<c>", "<k>", "<n>", "▁x", "<0x41>", "Ġab", "Ā")
	bl.Types[256], bl.Types[257], bl.Types[258], bl.Types[259] = TypeUserDefined, TypeControl, TypeUnknown, TypeUnused
	bl.Types[261] = TypeByte
	bl.AddSpacePrefix = true // a flag for SentencePiece only: byte-level decoding removes no space
	g := mustNew(t, "toy byte-level vocabulary", bl)
	spm := &Vocab{Model: "llama", BOS: 1, EOS: 2, UNK: 0, AddSpacePrefix: true,
		Tokens: []string{"<unk>", "<s>", "</s>", "<0x41>", "<0xC3>", "<0x4>", "▁u", "▁a▁b", "<0x0A>"},
		Types:  []int32{TypeUnknown, TypeControl, TypeControl, TypeByte, TypeByte, TypeByte, TypeUserDefined, 1, TypeByte},
	}
	s := mustNew(t, "toy SentencePiece vocabulary", spm)
	for _, c := range []struct {
		name string
		tk   *Tokenizer
		id   int
		want []byte
	}{
		{"byte-level, user-defined <u>: as written", g, 256, []byte("<u>")},
		{"byte-level, control <c>: no text", g, 257, nil},
		{"byte-level, unknown <k>: no text", g, 258, nil},
		{"byte-level, unused <n>: no text", g, 259, nil},
		{"byte-level, normal ▁x (▁ is outside the byte map): as written", g, 260, []byte("▁x")},
		{"byte-level, byte-typed <0x41>: as normal, its characters", g, 261, []byte("<0x41>")},
		{"byte-level, normal Ġab", g, 262, []byte(" ab")},
		{"byte-level, normal Ā (byte 0)", g, 263, []byte{0}},
		{"byte-level, the last id", g, len(bl.Tokens) - 1, []byte{0}},
		{"byte-level, one past the last id", g, len(bl.Tokens), nil},
		{"SentencePiece, <unk>: no text", s, 0, nil},
		{"SentencePiece, <s>: no text", s, 1, nil},
		{"SentencePiece, byte <0x41>", s, 3, []byte("A")},
		{"SentencePiece, byte <0xC3> (hex letters)", s, 4, []byte{0xC3}},
		{"SentencePiece, byte-typed <0x4> (not <0xXX>): its text", s, 5, []byte("<0x4>")},
		{"SentencePiece, user-defined ▁u: as written, ▁ kept", s, 6, []byte("▁u")},
		{"SentencePiece, normal ▁a▁b: every ▁ a space", s, 7, []byte(" a b")},
		{"SentencePiece, byte <0x0A>", s, 8, []byte("\n")},
		{"SentencePiece, one past the last id", s, len(spm.Tokens), nil},
		{"SentencePiece, id −1", s, -1, nil},
	} {
		if got := c.tk.TokenBytes(c.id); !bytes.Equal(got, c.want) {
			t.Errorf("%s: TokenBytes(%d) = %q, want %q", c.name, c.id, got, c.want)
		}
	}
	for _, c := range []struct {
		name string
		tk   *Tokenizer
		ids  []int
		want string
	}{
		{"SentencePiece: only control tokens", s, []int{1, 2, 0}, ""},
		{"SentencePiece: the prefix space goes from the first token with text, after BOS", s, []int{1, 7, 7}, "a b a b"},
		{"SentencePiece: a user-defined token first keeps its text", s, []int{6, 7}, "▁u a b"},
		{"byte-level: a leading space stays (the space prefix is SentencePiece's, even with AddSpacePrefix set)", g, []int{262, 262}, " ab ab"},
		{"byte-level: control tokens stand for nothing", g, []int{257, 'a', 257}, "a"},
	} {
		if got := c.tk.Decode(c.ids); got != c.want {
			t.Errorf("%s: Decode(%v) = %q, want %q", c.name, c.ids, got, c.want)
		}
	}
	noPrefix := *spm
	noPrefix.AddSpacePrefix = false
	if got := mustNew(t, "toy SentencePiece vocabulary without a space prefix", &noPrefix).Decode([]int{7}); got != " a b" {
		t.Errorf("SentencePiece without AddSpacePrefix: Decode([▁a▁b]) = %q, want %q (no space was added, so none is removed)", got, " a b")
	}
}

// TestC4_5_StreamBytes feeds Phi-3's byte tokens (<0xXX> = id 0xXX+3) of
// random byte strings, valid UTF-8 and not, one at a time, and checks after
// every token that exactly the bytes that can no longer change have come
// out: all but a trailing sequence that more bytes could still complete.
// Then Flush hands out that tail, and a second Flush nothing.
func TestC4_5_StreamBytes(t *testing.T) {
	tk := newTokenizer(t, "phi-3")
	g := oracle.NewRand(45)
	// Bytes that matter for UTF-8: ASCII, continuations, every lead kind,
	// and bytes that can never appear.
	alphabet := []byte{'a', ' ', 0x80, 0x8F, 0x90, 0xA0, 0xBF, 0xC0, 0xC2, 0xC3, 0xDF, 0xE0, 0xE2, 0xED, 0xEF, 0xF0, 0xF3, 0xF4, 0xF5, 0xFF}
	for n := 0; n < 400; n++ {
		text := []byte("Hi") // the first token, ▁Hi, loses its prefix space
		for range g.Intn(12) {
			text = append(text, alphabet[g.Intn(len(alphabet))])
		}
		s := tk.NewStream()
		got := s.Next(tk.Encode("Hi", EncodeOptions{})[0])
		for i := 2; i < len(text); i++ {
			got += s.Next(int(text[i]) + 3)
			if want := string(text[:settled(text[:i+1])]); got != want {
				t.Fatalf("streaming the bytes % x: after byte %d the stream has given % x, want % x (hold back only a tail that more bytes could still make a character)",
					text, i, got, want)
			}
		}
		got += s.Flush()
		if got != string(text) {
			t.Fatalf("streaming the bytes % x: Next and Flush gave % x in all", text, got)
		}
		if rest := s.Flush(); rest != "" {
			t.Fatalf("streaming the bytes % x: a second Flush gave %q again; Flush must empty what it held", text, rest)
		}
	}
}

// settled is how many bytes of b no later byte can change: all of them but
// a trailing sequence that is the start of a character (a tail on which
// utf8.FullRune is false).
func settled(b []byte) int {
	for k := min(3, len(b)); k > 0; k-- {
		if !utf8.FullRune(b[len(b)-k:]) {
			return len(b) - k
		}
	}
	return len(b)
}

// TestC4_5_StreamLifecycle checks a stream over its whole life: control
// tokens before the text, the prefix space removed from the first piece
// only, ids outside the vocabulary, and a stream that goes on after Flush.
func TestC4_5_StreamLifecycle(t *testing.T) {
	tk := newTokenizer(t, "phi-3")
	hello := tk.Encode("Hello", EncodeOptions{})[0] // ▁Hello
	s := tk.NewStream()
	steps := []struct {
		what string
		call func() string
		want string
	}{
		{"Next(<s>)", func() string { return s.Next(1) }, ""},
		{"Next(-1)", func() string { return s.Next(-1) }, ""},
		{"Next(VocabSize())", func() string { return s.Next(tk.VocabSize()) }, ""},
		{"Next(▁Hello), the first text: its prefix space goes", func() string { return s.Next(hello) }, "Hello"},
		{"Flush() with nothing held", s.Flush, ""},
		{"Next(▁Hello) after Flush: the stream goes on, the space stays", func() string { return s.Next(hello) }, " Hello"},
		{"Next(<0xC3>)", func() string { return s.Next(0xC3 + 3) }, ""},
		{"Flush() of a lone lead byte", s.Flush, "\xc3"},
		{"Next(<0xA9>) after that Flush: a lone continuation byte is complete", func() string { return s.Next(0xA9 + 3) }, "\xa9"},
	}
	for i, st := range steps {
		if got := st.call(); got != st.want {
			t.Fatalf("step %d, %s = %q, want %q", i, st.what, got, st.want)
		}
	}
}
