package unit04

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/llmforge/forge/oracle"
)

// corpus is testdata/corpus.json: 561 strings in many scripts, emoji
// sequences, numbers, code and whitespace (written by ci/tokcorpus).
func corpus(t testing.TB) []string {
	t.Helper()
	var c []string
	readJSON(t, "testdata/corpus.json", &c)
	return c
}

// refCase is one string with the token ids llama.cpp gave it (recorded by
// ci/tokref): ids without special-token parsing, and special_ids with it
// (for strings that contain "<").
type refCase struct {
	Text       string `json:"text"`
	IDs        []int  `json:"ids"`
	SpecialIDs []int  `json:"special_ids"`
}

// llamaCpp returns the recorded cases of a vocabulary ("gpt-2", "phi-3").
func llamaCpp(t testing.TB, vocab string) []refCase {
	t.Helper()
	var rec struct{ Cases []refCase }
	readJSON(t, "testdata/llamacpp-"+vocab+".json", &rec)
	return rec.Cases
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// testVocab builds a Vocab from a testdata GGUF with the oracle's own
// metadata reader, so the tokenizer challenges do not depend on 4.6.
func testVocab(t testing.TB, name string) *Vocab {
	t.Helper()
	vocabOnce.Do(func() { vocabs = map[string]*Vocab{} })
	vocabMu.Lock()
	defer vocabMu.Unlock()
	if v, ok := vocabs[name]; ok {
		return v
	}
	md := oracle.GGUFMetadata("testdata/ggml-vocab-" + name + ".gguf")
	v := &Vocab{BOS: -1, EOS: -1, UNK: -1}
	v.Model, _ = md["tokenizer.ggml.model"].(string)
	v.Pre, _ = md["tokenizer.ggml.pre"].(string)
	for _, x := range list(md, "tokenizer.ggml.tokens") {
		v.Tokens = append(v.Tokens, x.(string))
	}
	for _, x := range list(md, "tokenizer.ggml.merges") {
		v.Merges = append(v.Merges, x.(string))
	}
	for _, x := range list(md, "tokenizer.ggml.scores") {
		v.Scores = append(v.Scores, float32(x.(float64)))
	}
	for _, x := range list(md, "tokenizer.ggml.token_type") {
		v.Types = append(v.Types, int32(x.(int64)))
	}
	for key, dst := range map[string]*int{"bos_token_id": &v.BOS, "eos_token_id": &v.EOS, "unknown_token_id": &v.UNK} {
		if x, ok := md["tokenizer.ggml."+key].(uint64); ok {
			*dst = int(x)
		}
	}
	v.AddBOS, v.AddSpacePrefix = v.Model == "llama", v.Model == "llama"
	if x, ok := md["tokenizer.ggml.add_bos_token"].(bool); ok {
		v.AddBOS = x
	}
	if x, ok := md["tokenizer.ggml.add_eos_token"].(bool); ok {
		v.AddEOS = x
	}
	if x, ok := md["tokenizer.ggml.add_space_prefix"].(bool); ok {
		v.AddSpacePrefix = x
	}
	vocabs[name] = v
	return v
}

var (
	vocabOnce sync.Once
	vocabMu   sync.Mutex
	vocabs    map[string]*Vocab
)

func list(md map[string]any, key string) []any {
	l, _ := md[key].([]any)
	return l
}

// newTokenizer builds the tokenizer of a testdata vocabulary.
func newTokenizer(t testing.TB, name string) *Tokenizer {
	t.Helper()
	tk, err := New(testVocab(t, name))
	if err != nil {
		t.Fatalf("New(%s vocabulary): %v", name, err)
	}
	return tk
}

// sameIDs reports whether two id sequences are equal.
func sameIDs(a, b []int) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// firstDiff describes where two id sequences part.
func firstDiff(got, want []int) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("first difference at position %d: got %d, want %d", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(got), len(want))
}
