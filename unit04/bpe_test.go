package unit04

import (
	"errors"
	"fmt"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
)

// toyMerges rank pairs so that ties and order matter: "a b" before "b c",
// and the longer merges only after their parts exist.
var toyMerges = []string{"a b", "b c", "ab c", "c c", "a a", "aa a", "x y", "y x", "xy x"}

func TestC4_3_NewMerges(t *testing.T) {
	m, err := NewMerges(append(toyMerges, "a b", "Ġ t", "ĠĠ ĠĠ"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		l, r string
		rank int
		ok   bool
	}{{"a", "b", 0, true}, {"xy", "x", 8, true}, {"Ġ", "t", 10, true}, {"ĠĠ", "ĠĠ", 11, true}, {"b", "a", 0, false}, {"a", "c", 0, false}} {
		rank, ok := m.Rank(c.l, c.r)
		if ok != c.ok || ok && rank != c.rank {
			t.Errorf("Rank(%q, %q) = %d, %v; want %d, %v (rank = position in the list; a repeated entry keeps its first rank)", c.l, c.r, rank, ok, c.rank, c.ok)
		}
	}
	for _, bad := range []string{"ab", "a ", " ", ""} {
		if _, err := NewMerges([]string{bad}); !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("NewMerges([%q]): error %v, want unit00.ErrInvalid", bad, err)
		}
	}
	tr := TokenRanks{"ab": 5, "abc": 9}
	if r, ok := tr.Rank("ab", "c"); !ok || r != 9 {
		t.Errorf("TokenRanks.Rank(ab, c) = %d, %v; want 9, true (the rank of the token the pair forms)", r, ok)
	}
}

// words returns test words as symbol lists: toy strings and byte-level
// words of the corpus.
func words(t *testing.T) [][]string {
	ws := [][]string{
		oracle.Runes("abc"), oracle.Runes("abcabc"), oracle.Runes("aaaa"), oracle.Runes("aaaaa"), oracle.Runes("ccc"),
		oracle.Runes("xyxyx"), oracle.Runes("xyx"), oracle.Runes("bcab"), oracle.Runes("a"), nil,
	}
	for _, s := range corpus(t) {
		for _, w := range PreGPT2.Split(s) {
			ws = append(ws, oracle.Runes(ToByteLevel([]byte(w))))
		}
	}
	return ws
}

func TestC4_3_MergeNaive(t *testing.T) {
	gpt2 := testVocab(t, "gpt-2")
	for _, list := range [][]string{toyMerges, gpt2.Merges} {
		m, err := NewMerges(list)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range words(t) {
			got, want := MergeNaive(m, w), oracle.NaiveBPE(m.Rank, w)
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
				t.Fatalf("MergeNaive(%q)\n got %q\nwant %q (lowest rank first, the leftmost pair on a tie)", w, got, want)
			}
		}
	}
}

func TestC4_3_Merge(t *testing.T) {
	gpt2 := testVocab(t, "gpt-2")
	ranks := TokenRanks{}
	for id, tok := range gpt2.Tokens {
		ranks[tok] = id
	}
	merges, _ := NewMerges(gpt2.Merges)
	toy, _ := NewMerges(toyMerges)
	for _, r := range []Ranker{toy, merges, ranks} {
		for _, w := range words(t) {
			got, want := Merge(r, w), MergeNaive(r, w)
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
				t.Fatalf("Merge(%q) with %T\n got %q\nwant %q (MergeNaive's answer)", w, r, got, want)
			}
		}
	}
	// Merge must not change its input.
	w := oracle.Runes("abcabc")
	Merge(toy, w)
	if fmt.Sprint(w) != "[a b c a b c]" {
		t.Errorf("Merge changed the caller's symbols to %q", w)
	}
}

func TestC4_3_EncodeGPT2(t *testing.T) {
	tk := newTokenizer(t, "gpt-2")
	bad := 0
	for _, c := range llamaCpp(t, "gpt-2") {
		got := tk.Encode(c.Text, EncodeOptions{})
		if !sameIDs(got, c.IDs) {
			t.Errorf("Encode(%q) with the GPT-2 vocabulary\n got %v\nwant %v (llama.cpp's ids; %s)", c.Text, got, c.IDs, firstDiff(got, c.IDs))
			if bad++; bad >= 5 {
				t.FailNow()
			}
		}
	}
}

// TestC4_3_LlamaCppVocabs runs llama.cpp's own tokenizer test for every
// byte-level vocabulary it ships that this tokenizer supports: each
// pre-tokenizer family (4.2) with its real merges.
func TestC4_3_LlamaCppVocabs(t *testing.T) {
	checkVocabCases(t, "gpt-2", "starcoder", "refact", "falcon", "deepseek-coder", "deepseek-llm")
}

func TestC4_3_SpecialTokens(t *testing.T) {
	tk := newTokenizer(t, "gpt-2")
	for _, c := range llamaCpp(t, "gpt-2") {
		if c.SpecialIDs == nil {
			continue
		}
		if got := tk.Encode(c.Text, EncodeOptions{ParseSpecial: true}); !sameIDs(got, c.SpecialIDs) {
			t.Errorf("Encode(%q, ParseSpecial) = %v, want %v (llama.cpp's ids)", c.Text, got, c.SpecialIDs)
		}
	}
	text := "a<|endoftext|>b"
	plain := tk.Encode(text, EncodeOptions{})
	special := tk.Encode(text, EncodeOptions{ParseSpecial: true})
	if sameIDs(plain, special) || len(special) != 3 || special[1] != 50256 {
		t.Errorf("Encode(%q) = %v without and %v with ParseSpecial: only with it is <|endoftext|> one token (50256)", text, plain, special)
	}
	if got := tk.Encode("hi", EncodeOptions{AddSpecial: true}); !sameIDs(got, tk.Encode("hi", EncodeOptions{})) {
		t.Errorf("AddSpecial added tokens %v to a vocabulary whose add_bos_token is false", got)
	}
}
