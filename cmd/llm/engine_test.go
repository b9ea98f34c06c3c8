package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/llmforge/forge/unit04"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit06"
	"github.com/llmforge/forge/unit07"
	"github.com/llmforge/forge/unit08"
	"github.com/llmforge/forge/unit10"
)

// These tests run models, so they need the units written: CI runs them on
// the reference,
//
//	go test -overlay "$(go run ./cmd/forge overlay --impl ref)" ./cmd/llm
//
// and on unwritten units they skip (the usage tests still run).

var fixture struct {
	once sync.Once
	dir  string
	tiny string // a tiny q8_0 model with the GPT-2 vocabulary
	skip string // why the engine cannot run, if it cannot
	err  string
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "llm-test-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fixture.dir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// tinyModel returns the path of the shared tiny model, written by llm gen
// on first use; it skips the test when the units are stubs.
func tinyModel(t *testing.T) string {
	t.Helper()
	fixture.once.Do(func() {
		path := filepath.Join(fixture.dir, "tiny.gguf")
		r := llm("gen", "--shape", "tiny", "--type", "q8_0", "--vocab", "gpt2", "--seed", "1", "-o", path)
		switch {
		case strings.Contains(r.stderr, "not written yet"):
			fixture.skip = "the units are not written yet (" + strings.TrimSpace(r.stderr) + "): run these tests on the reference, go test -overlay \"$(go run ./cmd/forge overlay --impl ref)\" ./cmd/llm"
		case r.status != 0 || r.stdout != "":
			fixture.err = fmt.Sprintf("llm gen: status %d, stdout %q, stderr %q", r.status, r.stdout, r.stderr)
		default:
			fixture.tiny = path
		}
	})
	if fixture.skip != "" {
		t.Skip(fixture.skip)
	}
	if fixture.err != "" {
		t.Fatal(fixture.err)
	}
	return fixture.tiny
}

// spmModel is tinyModel with Phi-3's SentencePiece vocabulary, and so
// Phi-3's chat template.
func spmModel(t *testing.T) string {
	t.Helper()
	tinyModel(t) // skips where the units are not written
	spm.once.Do(func() {
		path := filepath.Join(fixture.dir, "tiny-spm.gguf")
		if r := llm("gen", "--shape", "tiny", "--type", "q8_0", "--vocab", "spm", "--seed", "1", "-o", path); r.status != 0 {
			spm.err = fmt.Sprintf("llm gen --vocab spm: status %d, stderr %q", r.status, r.stderr)
			return
		}
		spm.path = path
	})
	if spm.err != "" {
		t.Fatal(spm.err)
	}
	return spm.path
}

var spm struct {
	once      sync.Once
	path, err string
}

// ok runs a command line that must succeed and returns its stdout.
func ok(t *testing.T, args ...string) string {
	t.Helper()
	r := llm(args...)
	if r.status != 0 {
		t.Fatalf("llm %q: exit status %d, stderr %q", args, r.status, r.stderr)
	}
	return r.stdout
}

// asJSON returns s as it comes back from JSON: invalid UTF-8 (a random
// model can stream a character's first byte and never finish it) replaced
// by U+FFFD.
func asJSON(t *testing.T, s string) string {
	b, _ := json.Marshal(s)
	return decodeJSON[string](t, string(b))
}

func decodeJSON[T any](t *testing.T, s string) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v in %q", err, s)
	}
	return v
}

// TestGreedyIsUnit10Greedy: llm run --temp 0 gives exactly the tokens of
// unit10.Greedy on the same model and prompt, with the same attention and
// KV cache (llm's default: flash attention over an F16 cache).
func TestGreedyIsUnit10Greedy(t *testing.T) {
	path := tinyModel(t)
	const prompt, n = "The quick brown fox", 24
	out := ok(t, "run", "-m", path, "-p", prompt, "--temp", "0", "--json", "-n", fmt.Sprint(n), "--ignore-eos", "-t", "2")
	got := decodeJSON[runJSON](t, out)

	m, err := unit10.Load(path, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, _, err := unit08.UseCache(m.Model, defaultCache.k, defaultCache.v); err != nil {
		t.Fatal(err)
	}
	ids := m.Tokenizer.Encode(prompt, unit04.EncodeOptions{AddSpecial: true, ParseSpecial: true})
	want, err := unit10.Greedy(unit07.NewSession(m.Model), ids, n)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.PromptTokens) != fmt.Sprint(ids) {
		t.Errorf("prompt_tokens %v, the tokenizer's %v", got.PromptTokens, ids)
	}
	if fmt.Sprint(got.Tokens) != fmt.Sprint(want) {
		t.Errorf("llm run --temp 0 tokens\n %v\nunit10.Greedy\n %v", got.Tokens, want)
	}
	// JSON holds valid UTF-8: a byte of a character cut off by the last
	// token comes out as U+FFFD, as encoding/json writes it.
	text, _ := json.Marshal(m.Tokenizer.Decode(want))
	var wantText string
	if err := json.Unmarshal(text, &wantText); err != nil {
		t.Fatal(err)
	}
	if got.Stop != "length" || got.Text != wantText {
		t.Errorf("stop %q, text %q; want length, %q", got.Stop, got.Text, wantText)
	}
	if got.Timings.PromptTPS <= 0 || got.Timings.GenTPS <= 0 || got.Timings.GenMS <= 0 {
		t.Errorf("timings %+v: want positive figures", got.Timings)
	}
}

func TestRunStreams(t *testing.T) {
	path := tinyModel(t)
	args := []string{"run", "-m", path, "-p", "Once upon a time", "-n", "12", "--seed", "7", "--ignore-eos"}
	r := llm(args...)
	if r.status != 0 {
		t.Fatalf("llm %q: status %d, stderr %q", args, r.status, r.stderr)
	}
	if !strings.HasPrefix(r.stdout, "Once upon a time") || !strings.HasSuffix(r.stdout, "\n") {
		t.Errorf("stdout %q: want the prompt, the text and a newline", r.stdout)
	}
	for _, want := range []string{"prompt: 4 tokens", "generated: 12 tokens", "tok/s", "stop: length", "seed: 7"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr %q: no %q", r.stderr, want)
		}
	}
	// The same seed replays the same text; --json carries that text.
	if again := llm(args...); again.stdout != r.stdout {
		t.Errorf("seed 7 twice: %q, then %q", r.stdout, again.stdout)
	}
	j := decodeJSON[runJSON](t, ok(t, append(args, "--json")...))
	if "Once upon a time"+j.Text+"\n" != asJSON(t, r.stdout) || j.Seed != 7 || len(j.Tokens) != 12 {
		t.Errorf("--json: text %q, seed %d, %d tokens; streamed %q", j.Text, j.Seed, len(j.Tokens), r.stdout)
	}
	// Without --seed the seed is random, and printed.
	a := decodeJSON[runJSON](t, ok(t, "run", "-m", path, "-p", "x", "-n", "2", "--json"))
	b := decodeJSON[runJSON](t, ok(t, "run", "-m", path, "-p", "x", "-n", "2", "--json"))
	if a.Seed == b.Seed {
		t.Errorf("two runs without --seed both had seed %d", a.Seed)
	}
	// --no-display-prompt prints the text alone.
	if out := ok(t, append(args, "--no-display-prompt")...); out != strings.TrimPrefix(r.stdout, "Once upon a time") {
		t.Errorf("--no-display-prompt: %q, want %q", out, strings.TrimPrefix(r.stdout, "Once upon a time"))
	}
}

func TestRunStops(t *testing.T) {
	path := tinyModel(t)
	base := []string{"run", "-m", path, "-p", "Hello", "--temp", "0", "--json", "--ignore-eos"}
	full := decodeJSON[runJSON](t, ok(t, append(base, "-n", "16")...))
	// A reverse prompt: a piece of the greedy text stops generation there.
	stop := strings.TrimSpace(full.Text[len(full.Text)/2:])
	if len(stop) > 4 {
		stop = stop[:4]
	}
	cut := strings.Index(full.Text, stop)
	got := decodeJSON[runJSON](t, ok(t, append(base, "-n", "16", "-r", "never seen", "--reverse-prompt", stop)...))
	if got.Stop != "stop" || got.Text != full.Text[:cut] {
		t.Errorf("-r %q: stop %q, text %q; want stop, %q", stop, got.Stop, got.Text, full.Text[:cut])
	}
	// -n -1 runs until the context is full.
	got = decodeJSON[runJSON](t, ok(t, append(base, "-n", "-1", "-c", "12")...))
	if got.Stop != "context" || len(got.PromptTokens)+len(got.Tokens) < 12 || len(got.PromptTokens)+len(got.Tokens) > 13 {
		t.Errorf("-n -1 -c 12: stop %q after %d prompt and %d generated tokens; want context after 12", got.Stop, len(got.PromptTokens), len(got.Tokens))
	}
	// A prompt longer than the context is bad input.
	args := []string{"run", "-m", path, "-p", "one two three four five", "-c", "3"}
	checkError(t, args, llm(args...), 2, "more than the context of 3: raise -c")
	// The prompt from a file.
	file := filepath.Join(t.TempDir(), "prompt.txt")
	os.WriteFile(file, []byte("Hello"), 0o644)
	if j := decodeJSON[runJSON](t, ok(t, "run", "-m", path, "-f", file, "--temp", "0", "--json", "--ignore-eos", "-n", "16")); fmt.Sprint(j.Tokens) != fmt.Sprint(full.Tokens) {
		t.Errorf("-f: tokens %v, with -p %v", j.Tokens, full.Tokens)
	}
}

// TestRunCanceled: a canceled context (as Ctrl-C cancels it) ends the run
// cleanly with status 130 and the result so far.
func TestRunCanceled(t *testing.T) {
	path := tinyModel(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := llmContext(ctx, "run", "-m", path, "-p", "Hello", "--json")
	if r.status != 130 || r.stderr != "" {
		t.Fatalf("canceled: status %d, stderr %q; want 130 and nothing", r.status, r.stderr)
	}
	if j := decodeJSON[runJSON](t, r.stdout); j.Stop != "canceled" {
		t.Errorf("canceled: stop %q", j.Stop)
	}
}

func TestEval(t *testing.T) {
	path := tinyModel(t)
	greedy := decodeJSON[runJSON](t, ok(t, "run", "-m", path, "-p", "Hello world", "--temp", "0", "--json", "-n", "1", "--ignore-eos"))
	ids := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(greedy.PromptTokens)), ","), "[]")
	rows := decodeJSON[[]evalRowJSON](t, ok(t, "eval", "-m", path, "--tokens", ids, "--top", "3", "--json"))
	if len(rows) != len(greedy.PromptTokens) {
		t.Fatalf("eval --json: %d rows for %d tokens", len(rows), len(greedy.PromptTokens))
	}
	for i, r := range rows {
		if r.Pos != i || r.Token != greedy.PromptTokens[i] || len(r.Top) != 3 || r.Top[0][1] < r.Top[1][1] || r.Top[1][1] < r.Top[2][1] {
			t.Errorf("row %d: %+v", i, r)
		}
	}
	// The last position's best token is the greedy next token.
	if last := rows[len(rows)-1]; int(last.Top[0][0]) != greedy.Tokens[0] {
		t.Errorf("eval's best next token %v, llm run --temp 0's %d", last.Top[0][0], greedy.Tokens[0])
	}
	// -p tokenizes as run does; the table has a header and a row per token.
	table := ok(t, "eval", "-m", path, "-p", "Hello world", "--top", "2")
	if lines := strings.Split(strings.TrimSpace(table), "\n"); len(lines) != 1+len(rows) || !strings.Contains(lines[1], `"Hello"`) {
		t.Errorf("eval table:\n%s", table)
	}
	args := []string{"eval", "-m", path, "--tokens", "1,99999999"}
	checkError(t, args, llm(args...), 2, "token 99999999 is outside the vocabulary of 50257 tokens")
}

type evalRowJSON struct {
	Pos   int          `json:"pos"`
	Token int          `json:"token"`
	Top   [][2]float64 `json:"top"`
}

func TestTokenize(t *testing.T) {
	path := tinyModel(t)
	ids := decodeJSON[[]int](t, ok(t, "tokenize", "-m", path, "--json", "Hello, world!"))
	if fmt.Sprint(ids) != "[15496 11 995 0]" { // GPT-2's ids
		t.Errorf("tokenize: %v", ids)
	}
	table := ok(t, "tokenize", "-m", path, "-p", "Hello, world!")
	if table != "15496\t\"Hello\"\n11\t\",\"\n995\t\" world\"\n0\t\"!\"\n" {
		t.Errorf("tokenize table %q", table)
	}
	for _, args := range [][]string{{"15496", "11", "995", "0"}, {"15496,11,995,0"}, {"[15496, 11, 995, 0]"}} {
		if got := ok(t, append([]string{"detokenize", "-m", path}, args...)...); got != "Hello, world!\n" {
			t.Errorf("detokenize %q: %q", args, got)
		}
	}
	html := decodeJSON[[]int](t, ok(t, "tokenize", "-m", path, "--json", "<b>&"))
	if got := ok(t, "detokenize", "-m", path, "--json", fmt.Sprint(html)); got != "\"<b>&\"\n" {
		t.Errorf("detokenize --json %v: %q, want \"<b>&\"", html, got)
	}
	// A vocabulary-only file works; SentencePiece adds BOS unless --no-bos,
	// and special tokens in the text are parsed unless --no-parse-special.
	phi3 := filepath.Join("..", "..", "unit04", "testdata", "ggml-vocab-phi-3.gguf")
	with := decodeJSON[[]int](t, ok(t, "tokenize", "-m", phi3, "--json", "Hi<|end|>"))
	without := decodeJSON[[]int](t, ok(t, "tokenize", "-m", phi3, "--json", "--no-bos", "Hi<|end|>"))
	plain := decodeJSON[[]int](t, ok(t, "tokenize", "-m", phi3, "--json", "--no-parse-special", "Hi<|end|>"))
	if len(with) < 2 || with[0] != 1 || fmt.Sprint(with[1:]) != fmt.Sprint(without) || !slices.Contains(with, 32007) || slices.Contains(plain, 32007) {
		t.Errorf("phi-3 vocabulary: %v, --no-bos %v, --no-parse-special %v", with, without, plain)
	}
	args := []string{"detokenize", "-m", path, "50257"}
	checkError(t, args, llm(args...), 2, "token 50257 is outside the vocabulary of 50257 tokens")
}

func TestInspect(t *testing.T) {
	path := tinyModel(t)
	text := ok(t, "inspect", path)
	for _, want := range []string{"GGUF version 3", "general.architecture", `"llama"`, "[string × 50257]", "token_embd.weight", "Q8_0", "256 × 50257", "total: 39 tensors"} {
		if !strings.Contains(text, want) {
			t.Errorf("inspect: no %q in\n%s", want, text)
		}
	}
	j := decodeJSON[inspectJSON](t, ok(t, "inspect", "--json", path))
	if j.Version != 3 || j.Alignment != 32 || len(j.Tensors) != 39 || j.Totals.Tensors != 39 || j.Totals.Types["Q8_0"] != 30 || j.Totals.Types["F32"] != 9 {
		t.Errorf("inspect --json: version %d, alignment %d, %d tensors, totals %+v", j.Version, j.Alignment, len(j.Tensors), j.Totals)
	}
	for _, kv := range j.Metadata {
		if kv.Key == "tokenizer.ggml.tokens" && (kv.Count == nil || *kv.Count != 50257 || len(kv.Head.([]any)) != 8) {
			t.Errorf("tokenizer.ggml.tokens: %+v", kv)
		}
	}
}

// tensorTypes returns the type of each tensor of a file, by name.
func tensorTypes(t *testing.T, path string) map[string]string {
	t.Helper()
	j := decodeJSON[inspectJSON](t, ok(t, "inspect", "--json", path))
	types := map[string]string{}
	for _, x := range j.Tensors {
		types[x.Name] = x.Type
	}
	for _, kv := range j.Metadata {
		if kv.Key == "general.file_type" {
			types["general.file_type"] = fmt.Sprint(kv.Value)
		}
	}
	return types
}

func TestQuantize(t *testing.T) {
	path := tinyModel(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "tiny-q4_k_m.gguf")
	r := llm("quantize", "-t", "2", path, out, "Q4_K_M")
	if r.status != 0 || r.stdout != "" || !strings.Contains(r.stderr, "wrote "+out) {
		t.Fatalf("quantize: status %d, stdout %q, stderr %q", r.status, r.stdout, r.stderr)
	}
	// q4_k_m over 4 layers: llama.cpp's use_more_bits picks layers 2 and 3.
	types := tensorTypes(t, out)
	want := map[string]string{
		"token_embd.weight": "Q4_K", "output.weight": "Q6_K", "output_norm.weight": "F32", "blk.0.attn_norm.weight": "F32",
		"blk.0.attn_q.weight": "Q4_K", "blk.0.attn_v.weight": "Q4_K", "blk.0.ffn_down.weight": "Q4_K",
		"blk.2.attn_v.weight": "Q6_K", "blk.3.ffn_down.weight": "Q6_K", "blk.3.ffn_up.weight": "Q4_K",
		"general.file_type": "15",
	}
	for name, typ := range want {
		if types[name] != typ {
			t.Errorf("after quantize q4_k_m, %s is %q, want %s", name, types[name], typ)
		}
	}
	// The quantized model runs, and back to f16 in place works too.
	ok(t, "run", "-m", out, "-p", "Hello", "-n", "4", "--json")
	ok(t, "quantize", out, out, "f16")
	if types := tensorTypes(t, out); types["blk.2.attn_v.weight"] != "F16" || types["output_norm.weight"] != "F32" || types["general.file_type"] != "1" {
		t.Errorf("after quantize f16: %v", types)
	}
	// No temporary file is left behind.
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("quantize left %d files in its directory, want 1", len(entries))
	}
}

func TestGen(t *testing.T) {
	path := tinyModel(t)
	dir := t.TempDir()
	// The same seed writes the same bytes.
	again := filepath.Join(dir, "again.gguf")
	ok(t, "gen", "--shape", "tiny", "--type", "q8_0", "--seed", "1", "-o", again)
	a, _ := os.ReadFile(path)
	b, _ := os.ReadFile(again)
	if !bytes.Equal(a, b) {
		t.Error("gen with the same seed wrote different files")
	}
	// q4_k_m with the SentencePiece vocabulary from a file.
	spm := filepath.Join(dir, "spm.gguf")
	ok(t, "gen", "--type", "q4_k_m", "--vocab-file", filepath.Join("..", "..", "unit04", "testdata", "ggml-vocab-phi-3.gguf"), "-s", "3", "-o", spm)
	types := tensorTypes(t, spm)
	if types["blk.0.attn_v.weight"] != "Q4_K" || types["blk.3.attn_v.weight"] != "Q6_K" || types["output.weight"] != "Q6_K" || types["general.file_type"] != "15" {
		t.Errorf("gen q4_k_m: %v", types)
	}
	if j := decodeJSON[runJSON](t, ok(t, "run", "-m", spm, "-p", "Hi", "-n", "3", "--json", "--ignore-eos")); j.PromptTokens[0] != 1 || len(j.Tokens) != 3 {
		t.Errorf("run on the SentencePiece model: %+v", j)
	}
}

func TestBench(t *testing.T) {
	path := tinyModel(t)
	out := ok(t, "bench", "-m", path, "-p", "16", "-n", "4", "-t", "1,2", "-r", "2", "--json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var tests []string
	for _, l := range lines {
		var j map[string]any
		if err := json.Unmarshal([]byte(l), &j); err != nil {
			t.Fatalf("bench --json line %q: %v", l, err)
		}
		var keys []string
		for k := range j {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if fmt.Sprint(keys) != "[model n_depth n_tokens test threads tps tps_stddev type_k type_v]" || j["model"] != path || j["tps"].(float64) <= 0 || j["n_depth"] != 0.0 ||
			j["type_k"] != "f16" || j["type_v"] != "f16" {
			t.Errorf("bench --json line %q: keys %v", l, keys)
		}
		tests = append(tests, fmt.Sprintf("%v/%v/%v", j["threads"], j["test"], j["n_tokens"]))
	}
	if fmt.Sprint(tests) != "[1/pp16/16 1/tg4/4 2/pp16/16 2/tg4/4]" {
		t.Errorf("bench ran %v", tests)
	}
	// At depth: the same tests after 0 and 40 tokens in the cache, named
	// as llama-bench names them.
	var depth []string
	for _, l := range strings.Split(strings.TrimSpace(ok(t, "bench", "-m", path, "-p", "16", "-n", "4", "-d", "0,40", "-r", "2", "--json")), "\n") {
		var j benchJSON
		if err := json.Unmarshal([]byte(l), &j); err != nil || j.TPS <= 0 {
			t.Fatalf("bench -d line %q: %v", l, err)
		}
		depth = append(depth, fmt.Sprintf("%s/%d/%d", j.Test, j.NTokens, j.NDepth))
	}
	if fmt.Sprint(depth) != "[pp16/16/0 tg4/4/0 pp16 @ d40/16/40 tg4 @ d40/4/40]" {
		t.Errorf("bench -d 0,40 ran %v", depth)
	}
	table := ok(t, "bench", "-m", path, "-p", "8", "-n", "0", "-r", "1")
	if lines := strings.Split(strings.TrimSpace(table), "\n"); len(lines) != 3 || !strings.Contains(lines[2], "| llama ") || !strings.Contains(lines[2], "pp8") || !strings.Contains(lines[2], "Q8_0") {
		t.Errorf("bench table:\n%s", table)
	}
}

// TestBadModelFiles: a missing, truncated or foreign file is bad input for
// every command that reads one: one line, exit status 2, nothing on stdout.
func TestBadModelFiles(t *testing.T) {
	path := tinyModel(t)
	dir := t.TempDir()
	data, _ := os.ReadFile(path)
	truncated := filepath.Join(dir, "truncated.gguf")
	os.WriteFile(truncated, data[:len(data)/2], 0o644)
	header := filepath.Join(dir, "header.gguf")
	os.WriteFile(header, data[:100], 0o644)
	text := filepath.Join(dir, "text.gguf")
	os.WriteFile(text, []byte("not a model\n"), 0o644)
	vocabOnly := filepath.Join("..", "..", "unit04", "testdata", "ggml-vocab-gpt-2.gguf")
	for _, file := range []string{truncated, header, text, filepath.Join(dir, "missing.gguf"), dir} {
		for _, args := range [][]string{
			{"run", "-m", file, "-p", "hi"},
			{"eval", "-m", file, "-p", "hi"},
			{"tokenize", "-m", file, "hi"},
			{"detokenize", "-m", file, "1"},
			{"inspect", file},
			{"quantize", file, filepath.Join(dir, "out.gguf"), "q8_0"},
			{"bench", "-m", file, "-p", "8", "-n", "0"},
			{"gen", "--vocab-file", file, "-o", filepath.Join(dir, "out.gguf")},
		} {
			checkError(t, args, llm(args...), 2, filepath.Base(file))
		}
	}
	// A vocabulary is not a model.
	args := []string{"run", "-m", vocabOnly, "-p", "hi"}
	checkError(t, args, llm(args...), 2, "general.architecture")
	if _, err := os.Stat(filepath.Join(dir, "out.gguf")); err == nil {
		t.Error("a failed command left its output file")
	}
}

// TestMixtureOfExperts: a Mixtral-shaped model from gen runs end to end:
// run (greedy twice alike, and the same tokens as unit10.Greedy), bench,
// inspect of its 3-D expert tensors, and quantize, which leaves the
// routers in F32 and gives the experts' down projections the Q4_K_M rule
// of ffn_down.
func TestMixtureOfExperts(t *testing.T) {
	tinyModel(t) // skips on unwritten units
	dir := t.TempDir()
	path := filepath.Join(dir, "mixtral.gguf")
	ok(t, "gen", "--shape", "mixtral-tiny", "--type", "q8_0", "--seed", "2", "-o", path)
	types := tensorTypes(t, path)
	if types["blk.0.ffn_gate_inp.weight"] != "F32" || types["blk.3.ffn_down_exps.weight"] != "Q8_0" || types["blk.0.ffn_gate.weight"] != "" {
		t.Errorf("gen mixtral-tiny q8_0: %v", types)
	}
	a := decodeJSON[runJSON](t, ok(t, "run", "-m", path, "-p", "The experts", "-n", "8", "--temp", "0", "--json", "--ignore-eos"))
	b := decodeJSON[runJSON](t, ok(t, "run", "-m", path, "-p", "The experts", "-n", "8", "--temp", "0", "--json", "--ignore-eos", "-t", "1"))
	if len(a.Tokens) != 8 || fmt.Sprint(a.Tokens) != fmt.Sprint(b.Tokens) {
		t.Errorf("greedy run of the mixture: %v on the default threads, %v on one", a.Tokens, b.Tokens)
	}
	m, err := unit10.Load(path, 64, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, _, err := unit08.UseCache(m.Model, defaultCache.k, defaultCache.v); err != nil {
		t.Fatal(err)
	}
	if want, err := unit10.Greedy(unit07.NewSession(m.Model), a.PromptTokens, 8); err != nil || fmt.Sprint(want) != fmt.Sprint(a.Tokens) {
		t.Errorf("llm run --temp 0 chose %v, unit10.Greedy %v (%v)", a.Tokens, want, err)
	}
	if out := ok(t, "bench", "-m", path, "-p", "16", "-n", "4", "-r", "1"); !strings.Contains(out, "pp16") || !strings.Contains(out, "tg4") {
		t.Errorf("bench of the mixture:\n%s", out)
	}
	if out := ok(t, "inspect", path); !strings.Contains(out, "blk.0.ffn_up_exps.weight") || !strings.Contains(out, "llama.expert_count") {
		t.Errorf("inspect of the mixture shows no experts:\n%s", out)
	}
	out := filepath.Join(dir, "mixtral-q4_k_m.gguf")
	ok(t, "quantize", path, out, "q4_k_m")
	types = tensorTypes(t, out)
	for name, typ := range map[string]string{"blk.0.ffn_gate_inp.weight": "F32", "blk.0.ffn_up_exps.weight": "Q4_K", "blk.2.ffn_down_exps.weight": "Q6_K", "blk.1.ffn_down_exps.weight": "Q4_K"} {
		if types[name] != typ {
			t.Errorf("after quantize q4_k_m, %s is %q, want %s", name, types[name], typ)
		}
	}
	ok(t, "run", "-m", out, "-p", "Hello", "-n", "4", "--json")
}

// TestBenchFill: a test at depth d runs with exactly the first d tokens of
// the sequence in the cache: cut back to them when it holds more, the rest
// prefilled when it holds fewer.
func TestBenchFill(t *testing.T) {
	c := unit05.Config{Dim: 16, Layers: 1, Heads: 2, KVHeads: 1, HeadDim: 8, FFN: 8, Vocab: 50, MaxSeq: 200, RopeBase: 10000, RMSEps: 1e-5}
	w, err := unit05.RandomWeights(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	net, err := unit05.NewModel(c, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	tokens := make([]int, 200)
	for i := range tokens {
		tokens[i] = (7 * i) % c.Vocab
	}
	b := &bencher{s: unit07.NewSession(net), ctx: context.Background(), tokens: tokens}
	for _, tc := range []struct {
		t   benchTest
		len int // the cache's length after the run
	}{
		{benchTest{name: "pp16 @ d40", prompt: true, n: 16, depth: 40}, 56},
		{benchTest{name: "pp16 @ d40", prompt: true, n: 16, depth: 40}, 56},
		{benchTest{name: "tg4 @ d40", prompt: false, n: 4, depth: 40}, 44},
		{benchTest{name: "tg4", prompt: false, n: 4, depth: 0}, 12},
		{benchTest{name: "pp16", prompt: true, n: 16, depth: 0}, 16},
		{benchTest{name: "pp60 @ d100", prompt: true, n: 60, depth: 100}, 160},
	} {
		if _, err := b.run(tc.t); err != nil {
			t.Fatalf("%s: %v", tc.t.name, err)
		}
		if b.s.Len() != tc.len {
			t.Errorf("after %s the cache holds %d positions, want %d", tc.t.name, b.s.Len(), tc.len)
		}
	}
	// The cache holds the sequence's first positions: its last logits are
	// those of a fresh prefill of the same tokens.
	last, err := b.s.Prefill(tokens[160:161])
	if err != nil {
		t.Fatal(err)
	}
	got := append([]float32(nil), last...)
	want, err := unit07.NewSession(net).Prefill(tokens[:161])
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if d := got[i] - want[i]; d > 1e-4 || d < -1e-4 {
			t.Fatalf("logit %d after the bench runs' cache plus one token: %v, want %v as after a fresh prefill of the same 161 tokens", i, got[i], want[i])
		}
	}
}

// TestCacheTypes: every KV cache type runs (-ctk and -ctv apart, any
// case), a greedy run with an F16 cache gives the tokens of a session over
// the same model with unit08's F16 store, and bench reports the types.
func TestCacheTypes(t *testing.T) {
	path := tinyModel(t)
	base := []string{"run", "-m", path, "-p", "Hello", "--temp", "0", "--json", "-n", "6", "--ignore-eos"}
	for _, kv := range [][2]string{{"f32", "f32"}, {"F16", "f16"}, {"q8_0", "Q8_0"}, {"q8_0", "f32"}, {"f16", "q8_0"}} {
		j := decodeJSON[runJSON](t, ok(t, append(base, "-ctk", kv[0], "-ctv", kv[1])...))
		if len(j.Tokens) != 6 {
			t.Errorf("run -ctk %s -ctv %s: %d tokens, want 6", kv[0], kv[1], len(j.Tokens))
		}
	}
	line := strings.TrimSpace(ok(t, "bench", "-m", path, "-p", "8", "-n", "0", "-r", "1", "--json", "-ctk", "q8_0", "-ctv", "f32"))
	var j benchJSON
	if err := json.Unmarshal([]byte(line), &j); err != nil || j.TypeK != "q8_0" || j.TypeV != "f32" {
		t.Errorf("bench -ctk q8_0 -ctv f32 --json: %q (%v), want type_k q8_0 and type_v f32", line, err)
	}
}

// TestCacheFootprint: the memory check counts the KV cache in its types:
// per position and layer, KVDim values of keys and of values at 4 bytes
// (f32), 2 (f16) or 34 per 32 (q8_0).
func TestCacheFootprint(t *testing.T) {
	c := unit05.Config{Dim: 2048, Layers: 22, Heads: 32, KVHeads: 4, HeadDim: 64, FFN: 5632, Vocab: 32000, MaxSeq: 2048}
	for _, tc := range []struct {
		kv   cacheTypes
		want float64 // bytes per position and layer
	}{
		{cacheTypes{unit08.CacheF32, unit08.CacheF32}, 2 * 256 * 4},
		{cacheTypes{unit08.CacheF16, unit08.CacheF16}, 2 * 256 * 2},
		{cacheTypes{unit08.CacheQ8_0, unit08.CacheQ8_0}, 2 * 8 * 34},
		{cacheTypes{unit08.CacheQ8_0, unit08.CacheF32}, 8*34 + 256*4},
	} {
		f := contextFootprint(c, unit06.Config{}, 1000, 2, tc.kv)
		if want := 22 * 1000 * tc.want; f.kv != want {
			t.Errorf("the KV cache of TinyLlama's shape at 1000 positions, %v keys and %v values: %v bytes, want %v", tc.kv.k, tc.kv.v, f.kv, want)
		}
	}
}
