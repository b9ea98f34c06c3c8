package unit04

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

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

// TestC4_3_ToyVocabularies encodes with small vocabularies built so that
// each rule of New and Encode decides the ids: ids 0–255 are the bytes'
// characters, so unmerged text encodes to its bytes, and the tokens from
// 256 on are named in each case.
func TestC4_3_ToyVocabularies(t *testing.T) {
	gpt2 := func(merges []string, extra ...string) *Tokenizer {
		return mustNew(t, fmt.Sprintf("toy vocabulary, merges %q, tokens from 256 %q", merges, extra), toyByteVocab("gpt-2", merges, extra...))
	}
	// Byte 'z' (0x7A) without a token of its own: a word holding it cannot
	// start from one token per byte.
	noZ := toyByteVocab("gpt-2", []string{"a b", "ab c"}, "ab")
	noZ.Tokens['z'] = "ⓩ"
	withoutZ := mustNew(t, "toy vocabulary without z's token", noZ)
	// The same with a token of empty text (some converted vocabularies have
	// them): no symbol of a word is ever empty, so it never comes out.
	emptyTok := toyByteVocab("gpt-2", []string{"a b", "ab c"}, "ab", "")
	emptyTok.Tokens['z'] = "ⓩ"
	withEmpty := mustNew(t, "toy vocabulary without z's token, with an empty token (id 257)", emptyTok)
	llama3 := mustNew(t, "toy vocabulary, Llama 3 pre-tokenizer", toyByteVocab("llama-bpe", []string{"x y"}, "xy", "xyz"))
	qwen2 := mustNew(t, "toy vocabulary, Qwen2 pre-tokenizer", toyByteVocab("qwen2", []string{"x y"}, "xy", "xyz"))
	checkEncodeCases(t, []encodeCase{
		{"a repeated token text (ids 256 and 257): the first id is the token", gpt2([]string{"a b"}, "ab", "ab"), "ab", EncodeOptions{}, []int{256}},
		{"no merge list: a pair ranks by the id of the token it forms, bc (256) before ab (257)", gpt2(nil, "bc", "ab"), "abc", EncodeOptions{}, []int{'a', 256}},
		{"a merge list: a b (rank 0) before b c (rank 1)", gpt2([]string{"a b", "b c"}, "bc", "ab"), "abc", EncodeOptions{}, []int{257, 'c'}},
		{"a merge list ranks, not the token ids: b c (rank 0) before a b", gpt2([]string{"b c", "a b"}, "ab", "bc"), "abc", EncodeOptions{}, []int{'a', 257}},
		{"empty text", gpt2([]string{"a b"}, "ab"), "", EncodeOptions{}, nil},
		{"a merge whose result is not a token: its parts stay", gpt2([]string{"a b"}), "ab ab", EncodeOptions{}, bytesOf("ab ab")},
		{"tokens written with a plain space (a b, aa b) are no merge's result: merge a b gives a+b, ab (256)", gpt2([]string{"a b"}, "ab", "a b", "aa b"), "ab", EncodeOptions{}, []int{256}},
		{"a byte without a token is left out, the rest merges", withoutZ, "zab", EncodeOptions{}, []int{256}},
		{"a merged symbol that is no token comes out as the tokens of its characters (ab c merges, abc is no token)", withoutZ, "abcz", EncodeOptions{}, bytesOf("abc")},
		{"the same word without the missing byte", withoutZ, "abc", EncodeOptions{}, bytesOf("abc")},
		{"a token of empty text matches no symbol (the word takes the character-by-character road: z has no token)", withEmpty, "abz", EncodeOptions{}, []int{256}},
		{"Llama 3: a word that is a token is that token, whatever the merges give (ignore_merges)", llama3, "xyz xyz", EncodeOptions{}, []int{257, ' ', 256, 'z'}},
		{"Qwen2 merges every word (no ignore_merges)", qwen2, "xyz", EncodeOptions{}, []int{256, 'z'}},
	})
}

// TestC4_3_ToySpecialTokens checks special-token matching and AddSpecial on
// a toy vocabulary: tokens that are prefixes of one another (the longest
// wins), user-defined tokens, a normal token that looks special (never cut
// out), an empty control token (never matched), BOS and EOS.
func TestC4_3_ToySpecialTokens(t *testing.T) {
	v := toyByteVocab("gpt-2", []string{"a b"}, "ab", "<x>", "<x><y>", "<u>", "<n>", "", "<x><y>z")
	const ab, x, xy, u, n, empty, xyz = 256, 257, 258, 259, 260, 261, 262
	v.Types[x], v.Types[xy], v.Types[u], v.Types[empty] = TypeControl, TypeControl, TypeUserDefined, TypeControl
	v.Types[xyz] = TypeUnused
	v.BOS, v.EOS = x, u
	tk := mustNew(t, "toy vocabulary with special tokens", v)
	text := "ab<x><y>ab<x>b<u><n><x><y>z"
	on := EncodeOptions{ParseSpecial: true}
	// No BOS or EOS in the vocabulary: AddSpecial adds nothing, whatever the flags say.
	none := toyByteVocab("gpt-2", nil)
	none.AddBOS, none.AddEOS = true, true
	flags := func(bos, eos bool) *Tokenizer {
		w := *v
		w.AddBOS, w.AddEOS = bos, eos
		return mustNew(t, fmt.Sprintf("toy vocabulary, AddBOS %v, AddEOS %v", bos, eos), &w)
	}
	checkEncodeCases(t, []encodeCase{
		{"ParseSpecial: <x><y> holds <x> and is longer, so it wins; <u> is user-defined; <n> is a normal token", tk, text, on,
			[]int{ab, xy, ab, x, 'b', u, '<', 'n', '>', xy, 'z'}},
		{"without ParseSpecial control tokens are plain text, but user-defined <u> is still cut out", tk, text, EncodeOptions{},
			slices.Concat([]int{ab}, bytesOf("<x><y>"), []int{ab}, bytesOf("<x>b"), []int{u}, bytesOf("<n><x><y>z"))},
		{"without ParseSpecial a control-looking user-defined token (</s>) stays plain text, as llama.cpp does", mustNew(t, "toy vocabulary with a user-defined </s>", eosVocab()), "a</s>", EncodeOptions{},
			slices.Concat([]int{'a'}, bytesOf("</s>"))},
		{"ParseSpecial with no special token in the text", tk, "ab", on, []int{ab}},
		{"ParseSpecial, a special token alone", tk, "<x>", on, []int{x}},
		{"AddSpecial, AddBOS and AddEOS: BOS first, EOS last", flags(true, true), "ab", EncodeOptions{AddSpecial: true}, []int{x, ab, u}},
		{"AddSpecial, AddEOS only", flags(false, true), "ab", EncodeOptions{AddSpecial: true}, []int{ab, u}},
		{"AddSpecial, AddBOS only, empty text", flags(true, false), "", EncodeOptions{AddSpecial: true}, []int{x}},
		{"AddBOS and AddEOS without AddSpecial add nothing", flags(true, true), "ab", EncodeOptions{}, []int{ab}},
		{"AddSpecial with BOS and EOS −1 adds nothing", mustNew(t, "toy vocabulary without BOS and EOS", none), "a", EncodeOptions{AddSpecial: true}, []int{'a'}},
	})
}

// eosVocab is a toy vocabulary whose "</s>" is marked user-defined, as
// Phi-3's file marks it.
func eosVocab() *Vocab {
	v := toyByteVocab("gpt-2", nil, "</s>")
	v.Types[256] = TypeUserDefined
	return v
}

// TestC4_3_NewErrors checks that New refuses what it cannot encode.
func TestC4_3_NewErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		v    *Vocab
		kind error
	}{
		{"model bert", &Vocab{Model: "bert", Tokens: []string{"a"}, BOS: -1, EOS: -1, UNK: -1}, unit00.ErrUnsupported},
		{"no model", &Vocab{Tokens: []string{"a"}, BOS: -1, EOS: -1, UNK: -1}, unit00.ErrUnsupported},
		{"an unknown pre-tokenizer", toyByteVocab("tekken", nil), unit00.ErrUnsupported},
		{"no pre-tokenizer (llama.cpp's default split)", toyByteVocab("", nil), unit00.ErrUnsupported},
		{"a merge without a space", toyByteVocab("gpt-2", []string{"a b", "ab"}), unit00.ErrInvalid},
	} {
		_, err := New(c.v)
		require.ErrorIs(t, err, c.kind, "New of a vocabulary with %s", c.name)
	}
}
