package unit04

import (
	"bytes"
	"testing"
)

// TestC4_5_LowercaseByteTokens checks SentencePiece byte tokens written with
// lower-case hex digits. llama.cpp reads the two digits of <0xXX> with
// strtol(…, 16), which takes either case, so <0x0a> is a newline like <0x0A>.
func TestC4_5_LowercaseByteTokens(t *testing.T) {
	spm := &Vocab{Model: "llama", BOS: 1, EOS: 2, UNK: 0, AddSpacePrefix: true,
		Tokens: []string{"<unk>", "<s>", "</s>", "<0x0a>", "<0xaf>", "<0xfa>", "<0xbc>", "<0xde>", "<0xe2>", "<0x82>", "<0xac>", "<0xaF>", "<0xFa>"},
		Types: []int32{TypeUnknown, TypeControl, TypeControl, TypeByte, TypeByte, TypeByte, TypeByte, TypeByte,
			TypeByte, TypeByte, TypeByte, TypeByte, TypeByte},
	}
	tk := mustNew(t, "toy SentencePiece vocabulary with lower-case byte tokens", spm)
	for id, want := range map[int]byte{3: 0x0A, 4: 0xAF, 5: 0xFA, 6: 0xBC, 7: 0xDE, 8: 0xE2, 9: 0x82, 10: 0xAC, 11: 0xAF, 12: 0xFA} {
		if got := tk.TokenBytes(id); !bytes.Equal(got, []byte{want}) {
			t.Errorf("TokenBytes(%d %s) = % x, want %02x: the hex digits a–f count in lower case too (llama.cpp reads them with strtol, base 16)",
				id, spm.Tokens[id], got, want)
		}
	}
	if got := tk.Decode([]int{1, 8, 9, 10, 3}); got != "€\n" {
		t.Errorf("Decode([<s> <0xe2> <0x82> <0xac> <0x0a>]) = %q, want %q", got, "€\n")
	}
}

// TestC4_5_SpacePrefixToken checks a SentencePiece token that is nothing but
// the space prefix, ▁: as the first text it loses its space and stands for
// nothing; anywhere later it is a space.
func TestC4_5_SpacePrefixToken(t *testing.T) {
	spm := &Vocab{Model: "llama", BOS: 1, EOS: 2, UNK: 0, AddSpacePrefix: true,
		Tokens: []string{"<unk>", "<s>", "</s>", "▁", "▁u"},
		Types:  []int32{TypeUnknown, TypeControl, TypeControl, TypeNormal, TypeNormal},
	}
	tk := mustNew(t, "toy SentencePiece vocabulary with a ▁ token", spm)
	for _, c := range []struct {
		ids  []int
		want string
	}{
		{[]int{3}, ""},
		{[]int{1, 3}, ""},
		{[]int{3, 3}, " "},
		{[]int{1, 3, 4}, " u"},
		{[]int{4, 3}, "u "},
	} {
		if got := tk.Decode(c.ids); got != c.want {
			t.Errorf("Decode(%v) = %q, want %q (the first token with text, ▁ included, loses the one prefix space; later ▁ are spaces)", c.ids, got, c.want)
		}
	}
	s := tk.NewStream()
	for i, st := range []struct {
		id   int
		want string
	}{{1, ""}, {3, ""}, {4, " u"}, {3, " "}} {
		if got := s.Next(st.id); got != st.want {
			t.Fatalf("stream of [<s> ▁ ▁u ▁], step %d: Next(%d %s) = %q, want %q (the first ▁ is the prefix space and gives nothing; the stream has started after it)",
				i, st.id, spm.Tokens[st.id], got, st.want)
		}
	}
}

// TestC4_5_StreamHeldTails streams the byte tokens (<0xXX> = id 0xXX+3 in
// Phi-3) of a 2-, a 3- and a 4-byte character: every byte but the last is
// held back and the last releases the whole character; cut off before its
// last byte, the character's bytes come out of Flush as they are.
func TestC4_5_StreamHeldTails(t *testing.T) {
	tk := newTokenizer(t, "phi-3")
	for _, ch := range []string{"é", "€", "🫠"} { // C3 A9, E2 82 AC, F0 9F AB A0
		s := tk.NewStream()
		for i := 0; i < len(ch); i++ {
			want := ""
			if i == len(ch)-1 {
				want = ch
			}
			if got := s.Next(int(ch[i]) + 3); got != want {
				t.Errorf("streaming the %d bytes of %q (% x): Next(<0x%02X>) = %q, want %q (hold back the bytes of a character until its last one arrives)",
					len(ch), ch, ch, ch[i], got, want)
			}
		}
		if rest := s.Flush(); rest != "" {
			t.Errorf("streaming %q: Flush() = %q after the character was complete, want \"\"", ch, rest)
		}
		cut := ch[:len(ch)-1]
		s = tk.NewStream()
		for i := 0; i < len(cut); i++ {
			if got := s.Next(int(cut[i]) + 3); got != "" {
				t.Errorf("streaming the first %d of the %d bytes of %q: Next(<0x%02X>) = %q, want \"\" (the character is not complete yet)",
					len(cut), len(ch), ch, cut[i], got)
			}
		}
		if got := s.Flush(); got != cut {
			t.Errorf("streaming the first %d of the %d bytes of %q: Flush() = % x, want the held bytes % x as they are", len(cut), len(ch), ch, got, cut)
		}
		if got := s.Flush(); got != "" {
			t.Errorf("streaming %q cut short: a second Flush() = % x, want nothing", ch, got)
		}
	}
}
