package unit04

import (
	"testing"
)

func TestC4_4_EncodeSPM(t *testing.T) {
	tk := newTokenizer(t, "phi-3")
	bad := 0
	for _, c := range llamaCpp(t, "phi-3") {
		got := tk.Encode(c.Text, EncodeOptions{})
		if !sameIDs(got, c.IDs) {
			t.Errorf("Encode(%q) with the SentencePiece (Phi-3) vocabulary\n got %v\nwant %v (llama.cpp's ids; %s)", c.Text, got, c.IDs, firstDiff(got, c.IDs))
			if bad++; bad >= 5 {
				t.FailNow()
			}
		}
	}
}

// TestC4_4_LlamaCppVocabs runs llama.cpp's own tokenizer test for its
// SentencePiece vocabularies (Llama 2's and Phi-3's).
func TestC4_4_LlamaCppVocabs(t *testing.T) {
	checkVocabCases(t, "llama-spm", "phi-3")
}

func TestC4_4_ByteFallback(t *testing.T) {
	tk := newTokenizer(t, "phi-3")
	// 🫠 (U+1FAE0) is not in the vocabulary: its four UTF-8 bytes F0 9F AB A0
	// become the tokens <0xF0> <0x9F> <0xAB> <0xA0>, ids 0xF0+3 and so on.
	got := tk.Encode("🫠", EncodeOptions{})
	want := []int{29871, 0xF0 + 3, 0x9F + 3, 0xAB + 3, 0xA0 + 3}
	if !sameIDs(got, want) {
		t.Errorf("Encode(%q) = %v, want %v: ▁, then the byte tokens <0xF0> <0x9F> <0xAB> <0xA0> (id = byte + 3)", "🫠", got, want)
	}
}

func TestC4_4_SpecialAndPrefix(t *testing.T) {
	tk := newTokenizer(t, "phi-3")
	for _, c := range llamaCpp(t, "phi-3") {
		if c.SpecialIDs == nil {
			continue
		}
		if got := tk.Encode(c.Text, EncodeOptions{ParseSpecial: true}); !sameIDs(got, c.SpecialIDs) {
			t.Errorf("Encode(%q, ParseSpecial) = %v, want %v (llama.cpp's ids: a space prefix after each special token)", c.Text, got, c.SpecialIDs)
		}
	}
	got := tk.Encode("Hello", EncodeOptions{AddSpecial: true})
	if len(got) == 0 || got[0] != 1 {
		t.Errorf("Encode(\"Hello\", AddSpecial) = %v: this vocabulary's add_bos_token is true, so BOS (1) comes first", got)
	}
	if got := tk.Encode("", EncodeOptions{AddSpecial: true}); !sameIDs(got, []int{1}) {
		t.Errorf("Encode(\"\", AddSpecial) = %v, want [1]: BOS and no space prefix for empty text", got)
	}
	if got := tk.Encode("Hello", EncodeOptions{}); !sameIDs(got, []int{15043}) {
		t.Errorf("Encode(\"Hello\") = %v, want [15043] (▁Hello: the space prefix SentencePiece adds)", got)
	}
}
