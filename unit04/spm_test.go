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

// toySPM is a SentencePiece vocabulary small enough to follow by hand:
// scores (nil for none) decide which pair merges first.
func toySPM(t *testing.T, what string, scores map[string]float32, space bool) *Tokenizer {
	t.Helper()
	v := &Vocab{Model: "llama", BOS: 1, EOS: 2, UNK: 0, AddBOS: true, AddSpacePrefix: space,
		Tokens: []string{"<unk>", "<s>", "</s>", "▁", "a", "b", "c", "ab", "bc", "▁a", "<0x7A>", "<0xC3>", "<0xA9>", "ab", "é"},
		Types:  []int32{TypeUnknown, TypeControl, TypeControl, 1, 1, 1, 1, 1, 1, 1, TypeByte, TypeByte, TypeByte, 1, 1},
	}
	if scores != nil {
		v.Scores = make([]float32, len(v.Tokens))
		for id, tok := range v.Tokens {
			v.Scores[id] = scores[tok]
		}
	}
	return mustNew(t, what, v)
}

// TestC4_4_ToyVocabularies checks the SentencePiece rules on a toy
// vocabulary (ids: ▁ 3, a 4, b 5, c 6, ab 7, bc 8, ▁a 9, <0x7A> 10, <0xC3>
// 11, <0xA9> 12, ab again as 13, é 14): the highest score merges first, the
// leftmost on a tie or without scores; byte fallback; characters cut short
// by the end of the text or by an invalid lead byte; the space prefix.
func TestC4_4_ToyVocabularies(t *testing.T) {
	const sp, a, b, c, ab, bc, spA, z, c3, a9 = 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
	noScores := toySPM(t, "toy SentencePiece vocabulary without scores", nil, false)
	bcFirst := toySPM(t, "toy SentencePiece vocabulary, bc scores higher", map[string]float32{"ab": -2, "bc": -1}, false)
	abFirst := toySPM(t, "toy SentencePiece vocabulary, ab scores higher", map[string]float32{"ab": 5, "bc": 1}, false)
	prefix := toySPM(t, "toy SentencePiece vocabulary with a space prefix", nil, true)
	checkEncodeCases(t, []encodeCase{
		{"no scores: every pair ties, the leftmost merges (ab, id 7, not its repeat 13)", noScores, "abc", EncodeOptions{}, []int{ab, c}},
		{"bc scores higher than ab", bcFirst, "abc", EncodeOptions{}, []int{a, bc}},
		{"ab scores higher than bc", abFirst, "abc", EncodeOptions{}, []int{ab, c}},
		{"a tie between equal scores: the leftmost", bcFirst, "bcab", EncodeOptions{}, []int{bc, ab}},
		{"a space is ▁; ▁b is no token", noScores, "a b", EncodeOptions{}, []int{a, sp, b}},
		{"byte fallback: z is no token, <0x7A> is", noScores, "zab", EncodeOptions{}, []int{z, ab}},
		{"a two-byte character that is a token", noScores, "é", EncodeOptions{}, []int{14}},
		{"the lead byte \\xc3 announces two bytes: \\xc3\\xc3 is one symbol, no token, so \\xa9 cannot join the second \\xc3 into é",
			noScores, "\xc3é", EncodeOptions{}, []int{c3, c3, a9}},
		{"a character cut short by the end of the text", noScores, "a\xc3", EncodeOptions{}, []int{a, c3}},
		{"a lead byte announcing two bytes: \\xc3 and a are one symbol, no token, so each byte falls back (a has no <0x61>: the token a)",
			noScores, "\xc3a", EncodeOptions{}, []int{c3, a}},
		{"an invalid byte (\\xa9 cannot start a character) stands alone", noScores, "\xa9ab", EncodeOptions{}, []int{a9, ab}},
		{"space prefix: a is ▁a", prefix, "a", EncodeOptions{}, []int{spA}},
		{"space prefix, empty text: nothing", prefix, "", EncodeOptions{}, nil},
		{"space prefix after each special token, not before text that follows text", prefix, "a<s>a</s>", EncodeOptions{ParseSpecial: true},
			[]int{spA, 1, spA, 2}},
		{"AddSpecial: BOS, no EOS (AddEOS is false)", prefix, "a", EncodeOptions{AddSpecial: true}, []int{1, spA}},
	})
	// A merge on the right makes a new pair with its left neighbour: y+z
	// is the only pair at first, then x+yz is one. And a byte token may
	// have id 0 like any other.
	v := &Vocab{Model: "llama", BOS: 1, EOS: 2, UNK: 3,
		Tokens: []string{"<0x41>", "<s>", "</s>", "<unk>", "x", "y", "z", "yz", "xyz"},
		Types:  []int32{TypeByte, TypeControl, TypeControl, TypeUnknown, 1, 1, 1, 1, 1},
		Scores: []float32{0, 0, 0, 0, 0, 0, 0, -1, -2},
	}
	chain := mustNew(t, "toy SentencePiece vocabulary where yz then xyz merge, and <0x41> is id 0", v)
	checkEncodeCases(t, []encodeCase{
		{"y+z merges, then x+yz: after each merge, the pair with the left neighbour is tried again", chain, "xyz", EncodeOptions{}, []int{8}},
		{"the same inside a longer text: xyz and then z", chain, "xyzz", EncodeOptions{}, []int{8, 6}},
		{"byte fallback to id 0: A is no token, <0x41> is the first one", chain, "xA", EncodeOptions{}, []int{4, 0}},
	})
}
