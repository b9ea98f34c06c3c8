package unit04

import "testing"

// letterVocab is a byte-level vocabulary (GPT-2's pre-tokenizer) whose first
// ids are ordinary letters, as in vocabularies that do not start with the
// 256 bytes: tokens[0] is "a", tokens[1] is "b" and so on. Ids 0 and 1 are
// real tokens here, so neither can mean "no token" or "merged away".
func letterVocab(merges []string, tokens ...string) *Vocab {
	v := &Vocab{Model: "gpt2", Pre: "gpt-2", Tokens: tokens, Merges: merges, BOS: -1, EOS: -1, UNK: -1}
	v.Types = make([]int32, len(tokens))
	for i := range v.Types {
		v.Types[i] = TypeNormal
	}
	return v
}

// TestC4_3_LowIDs encodes with vocabularies whose ids 0 and 1 are letters:
// a symbol merged away must not come back or merge again, whatever its id,
// and a merge with a half that is no token never applies, even where the
// token with id 0 could stand in for the missing half.
func TestC4_3_LowIDs(t *testing.T) {
	// a 0, b 1, c 2, ab 3, bc 4, ba 5, ac 6.
	const a, b, c, ab, ba = 0, 1, 2, 3, 5
	overlap := mustNew(t, "toy vocabulary a 0, b 1, c 2, ab 3, bc 4, ba 5, ac 6, merges a b, b c, b a, a c",
		letterVocab([]string{"a b", "b c", "b a", "a c"}, "a", "b", "c", "ab", "bc", "ba", "ac"))
	// a 0, b 1, xyb 2: "xy" and "bxy" are no tokens.
	halves := mustNew(t, "toy vocabulary a 0, b 1, xyb 2, merges xy b, b xy",
		letterVocab([]string{"xy b", "b xy"}, "a", "b", "xyb"))
	// StarCoder's vocabulary starts with <|endoftext|>: BOS and EOS are id 0.
	sc := letterVocab(nil, "<|endoftext|>", "a", "b")
	sc.Types[0] = TypeControl
	sc.BOS, sc.EOS, sc.AddBOS, sc.AddEOS = 0, 0, true, true
	eot := mustNew(t, "toy vocabulary <|endoftext|> 0 (BOS and EOS), a 1, b 2, AddBOS and AddEOS", sc)
	checkEncodeCases(t, []encodeCase{
		{"one symbol (id 0)", overlap, "a", EncodeOptions{}, []int{a}},
		{"two symbols that merge", overlap, "ab", EncodeOptions{}, []int{ab}},
		{"a b (rank 0) merges; b (id 1) is then gone, so the pair b c waiting behind it must not merge", overlap, "abc", EncodeOptions{}, []int{ab, c}},
		{"b a (rank 2) merges; a (id 0) is then gone, so the pair a c waiting behind it must not merge", overlap, "bac", EncodeOptions{}, []int{ba, c}},
		{"merge xy b: xy is no token, so a (id 0) b stays two tokens", halves, "ab", EncodeOptions{}, []int{a, b}},
		{"merge b xy: xy is no token (nor is bxy), so b a (id 0) stays two tokens", halves, "ba", EncodeOptions{}, []int{b, a}},
		{"AddSpecial with BOS and EOS id 0: id 0 is a token like any other, −1 alone means none", eot, "ab", EncodeOptions{AddSpecial: true}, []int{0, 1, 2, 0}},
		{"AddSpecial with BOS and EOS id 0, empty text", eot, "", EncodeOptions{AddSpecial: true}, []int{0, 0}},
	})
}
