package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpeculative: llm run with a draft model or prompt lookup at
// temperature 0 writes the tokens the model alone writes, and says how
// the drafter did on the stats line and in --json; a draft whose
// vocabulary differs, and flags that do not go together, are refused.
func TestSpeculative(t *testing.T) {
	path := tinyModel(t)
	draft := filepath.Join(t.TempDir(), "draft.gguf")
	ok(t, "quantize", path, draft, "q4_0")
	base := []string{"run", "-m", path, "-p", "The quick brown fox", "--temp", "0", "-n", "24", "--ignore-eos", "-t", "2"}
	plain := decodeJSON[runJSON](t, ok(t, append(base, "--json")...))
	for _, flags := range [][]string{{"--model-draft", draft}, {"--model-draft", draft, "--draft-max", "2"}, {"--lookup", "--draft-max", "3"}, {"--md", draft, "--draft-min", "2"}} {
		got := decodeJSON[runJSON](t, ok(t, append(append(base, "--json"), flags...)...))
		if fmt.Sprint(got.Tokens) != fmt.Sprint(plain.Tokens) || got.Text != plain.Text {
			t.Errorf("llm run %v --temp 0: tokens %v; want the model's own %v", flags, got.Tokens, plain.Tokens)
		}
		s := got.Speculative
		if s == nil || s.Passes < 1 || s.Accepted+s.Rejected > s.Drafted || s.TokensPerPass < 1 {
			t.Errorf("llm run %v --json: speculative %+v; want the drafter's counts", flags, s)
		}
	}
	r := llm(append(base, "--model-draft", draft)...)
	if r.status != 0 || !strings.Contains(r.stderr, "draft (model): ") || !strings.Contains(r.stderr, "tokens per target pass") {
		t.Errorf("llm run --model-draft: status %d, stderr %q; want the stats line with the draft's acceptance", r.status, r.stderr)
	}
	if plain.Speculative != nil {
		t.Errorf("llm run without a drafter: speculative %+v in --json; want none", plain.Speculative)
	}

	other := filepath.Join(t.TempDir(), "other.gguf")
	ok(t, "gen", "--shape", "tiny", "--type", "q8_0", "--vocab", "spm", "--seed", "1", "-o", other)
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--model-draft", other}, "a draft model must share the model's vocabulary"},
		{[]string{"--model-draft", draft, "--lookup"}, "not both"},
		{[]string{"--lookup", "--draft-max", "2", "--draft-min", "3"}, "--draft-min 3 is more than --draft-max 2"},
		{[]string{"--draft-max", "4"}, "need --model-draft FILE or --lookup"},
		{[]string{"--lookup", "--draft-max", "0"}, "want a count from 1 to 64"},
		{[]string{"--model-draft", filepath.Join(t.TempDir(), "missing.gguf")}, "--model-draft"},
	} {
		args := append(append([]string(nil), base...), tc.flags...)
		r := llm(args...)
		checkError(t, args, r, 2, tc.want)
	}
}

// TestBenchSpeculative: llm bench with a drafter adds a specN test after
// each tgN test, with the drafter's counts in --json.
func TestBenchSpeculative(t *testing.T) {
	path := tinyModel(t)
	out := ok(t, "bench", "-m", path, "--lookup", "-p", "0", "-n", "8", "-r", "1", "-t", "1", "--json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("llm bench --lookup -n 8 --json: %d lines %q; want tg8 and spec8", len(lines), out)
	}
	tg, spec := decodeJSON[benchJSON](t, lines[0]), decodeJSON[benchJSON](t, lines[1])
	if tg.Test != "tg8" || tg.Acceptance != nil || spec.Test != "spec8" || spec.Acceptance == nil || spec.TokensPerPass == nil || *spec.TokensPerPass < 1 || spec.TPS <= 0 {
		t.Errorf("llm bench --lookup --json: %+v then %+v; want tg8 without a drafter's counts, then spec8 with them", tg, spec)
	}
}
