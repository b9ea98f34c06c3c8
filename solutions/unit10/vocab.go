package unit10

import (
	"fmt"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit04"
)

// LoadVocab reads the tokenizer.ggml.* metadata into a unit04.Vocab, with
// unit04.ReadVocab's rules for absent keys: ids −1, AddBOS and
// AddSpacePrefix true for a "llama" (SentencePiece) vocabulary. The token
// list is required and not empty; scores and token types, when present,
// must have one entry per token, and in a model so must the token list per
// row of token_embd.weight (the error names the array that is wrong and
// both lengths); any other key, when present, must have its type (a
// tokenizer.ggml.add_bos_token stored as an integer is an error naming
// the key, not an absent flag), as unit04.ReadVocab requires.
func LoadVocab(f *File) (*unit04.Vocab, error) {
	v := &unit04.Vocab{BOS: -1, EOS: -1, UNK: -1}
	var err error
	if v.Model, err = f.String("tokenizer.ggml.model"); err != nil {
		return nil, err
	}
	if v.Tokens, err = f.Strings("tokenizer.ggml.tokens"); err != nil {
		return nil, err
	}
	// Optional keys may be absent; present, they must have their type.
	has := func(key string) bool { _, ok := f.Lookup(key); return ok }
	if has("tokenizer.ggml.pre") {
		if v.Pre, err = f.String("tokenizer.ggml.pre"); err != nil {
			return nil, err
		}
	}
	if has("tokenizer.ggml.merges") {
		if v.Merges, err = f.Strings("tokenizer.ggml.merges"); err != nil {
			return nil, err
		}
	}
	if kv, ok := f.Lookup("tokenizer.ggml.scores"); ok {
		if v.Scores, ok = kv.Value.([]float32); !ok {
			return nil, f.wrongType(kv, "an array of FLOAT32")
		}
	}
	if kv, ok := f.Lookup("tokenizer.ggml.token_type"); ok {
		if v.Types, ok = kv.Value.([]int32); !ok {
			return nil, f.wrongType(kv, "an array of INT32")
		}
	}
	if err := checkVocabSize(f, v); err != nil {
		return nil, err
	}
	for _, id := range []struct {
		key string
		dst *int
	}{{"tokenizer.ggml.bos_token_id", &v.BOS}, {"tokenizer.ggml.eos_token_id", &v.EOS}, {"tokenizer.ggml.unknown_token_id", &v.UNK}} {
		if !has(id.key) {
			continue
		}
		n, err := f.Uint(id.key)
		if err != nil {
			return nil, err
		}
		if n >= uint64(len(v.Tokens)) {
			return nil, fmt.Errorf("%s: %s = %d, beyond the %d tokens: %w", f.source, id.key, n, len(v.Tokens), unit00.ErrInvalid)
		}
		*id.dst = int(n)
	}
	// The flags default as llama.cpp's do: BOS and a space prefix for
	// SentencePiece ("llama") vocabularies, nothing else.
	v.AddBOS, v.AddSpacePrefix = v.Model == "llama", v.Model == "llama"
	for _, flag := range []struct {
		key string
		dst *bool
	}{{"tokenizer.ggml.add_bos_token", &v.AddBOS}, {"tokenizer.ggml.add_eos_token", &v.AddEOS}, {"tokenizer.ggml.add_space_prefix", &v.AddSpacePrefix}} {
		if has(flag.key) {
			if *flag.dst, err = f.Bool(flag.key); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

// checkVocabSize checks that the token list, the scores and the token types
// have one entry per token. In a model the number of tokens is
// token_embd.weight's row count, as llama.cpp requires; in a
// vocabulary-only file it is the length most of the arrays agree on. The
// error names the array that differs, with its length and the expected
// one: a token list cut short is the token list's fault, not that of the
// token types it no longer matches.
func checkVocabSize(f *File, v *unit04.Vocab) error {
	arrays := []struct {
		key     string
		n       int
		present bool
	}{
		{"tokenizer.ggml.tokens", len(v.Tokens), true},
		{"tokenizer.ggml.scores", len(v.Scores), v.Scores != nil},
		{"tokenizer.ggml.token_type", len(v.Types), v.Types != nil},
	}
	want, from := len(v.Tokens), "the length of tokenizer.ggml.tokens"
	if embd, _, err := f.Tensor("token_embd.weight"); err == nil && len(embd.Dims) == 2 {
		want, from = int(embd.Dims[1]), "token_embd.weight's row count"
	} else if s, t := arrays[1], arrays[2]; s.present && t.present && s.n == t.n {
		want, from = s.n, "the length of tokenizer.ggml.scores and tokenizer.ggml.token_type"
	}
	if len(v.Tokens) == 0 {
		return f.errorf(unit00.ErrInvalid, "tokenizer.ggml.tokens is empty: a vocabulary has at least one token")
	}
	for _, a := range arrays {
		if a.present && a.n != want {
			return f.errorf(unit00.ErrInvalid, "%s has %d entries, but the vocabulary has %d tokens (%s): want one entry per token", a.key, a.n, want, from)
		}
	}
	return nil
}
