package main

import (
	"encoding/json"
	"os"
	"testing"
	"unicode/utf8"
)

// TestCommittedCorpus checks that unit04/testdata/corpus.json is what this
// generator writes: the llama.cpp ids recorded from it (ci/tokref) are only
// valid for exactly these strings, in this order.
func TestCommittedCorpus(t *testing.T) {
	data, err := os.ReadFile("../../unit04/testdata/corpus.json")
	if err != nil {
		t.Fatal(err)
	}
	var committed []string
	if err := json.Unmarshal(data, &committed); err != nil {
		t.Fatal(err)
	}
	gen := corpus()
	if len(gen) != len(committed) {
		t.Fatalf("generator makes %d strings, corpus.json has %d: run go generate ./unit04, then re-record ci/tokref", len(gen), len(committed))
	}
	for i := range gen {
		if gen[i] != committed[i] {
			t.Fatalf("string %d: generator %q, corpus.json %q: run go generate ./unit04, then re-record ci/tokref", i, gen[i], committed[i])
		}
	}
}

// TestCorpusShape checks the floor: at least 500 distinct strings,
// the empty and one-byte strings among them, every one valid UTF-8.
func TestCorpusShape(t *testing.T) {
	c := corpus()
	if len(c) < 500 {
		t.Errorf("%d strings, want at least 500", len(c))
	}
	seen := map[string]bool{}
	for i, s := range c {
		if seen[s] {
			t.Errorf("string %d %q is a duplicate", i, s)
		}
		seen[s] = true
		if !utf8.ValidString(s) {
			t.Errorf("string %d %q is not valid UTF-8", i, s)
		}
	}
	for _, s := range []string{"", " ", "a", "\n"} {
		if !seen[s] {
			t.Errorf("corpus lacks %q", s)
		}
	}
}
