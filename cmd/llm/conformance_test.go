package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit10"
)

// TestConformanceGreedy runs unit10's conformance models (the dense ones
// and the mixtures of experts) through llm run
// --temp 0 --json and compares the tokens with those llama.cpp chose
// (unit10/testdata/llamacpp-models.json): the prompt's token ids exactly,
// and the greedy tokens one by one until the two sequences part, which
// they may only at a step where llama.cpp's top two logits were so close
// that either choice is right (unit10's TestC10_5_LlamaCpp's near-tie rule
// and tolerances), and only to llama.cpp's runner-up. This is the proof
// that llm run --temp 0 is llama.cpp's greedy decoding.
//
// Each model runs twice: with a float32 KV cache against llama.cpp's
// recording with one (llamacpp-models.json), and with an F16 cache,
// llm's default, against llama.cpp's recording with its F16 cache
// (llamacpp-f16cache.json). With the F16 cache it runs twice more, with
// speculative decoding (--lookup, and --model-draft with itself as the
// draft), which must give the same tokens.
func TestConformanceGreedy(t *testing.T) {
	tinyModel(t) // skips on unwritten units
	for _, c := range []struct{ cache, record string }{{"f32", "llamacpp-models.json"}, {"f16", "llamacpp-f16cache.json"}} {
		t.Run(c.cache, func(t *testing.T) { conformanceGreedy(t, c.cache, c.record) })
	}
}

func conformanceGreedy(t *testing.T, cache, record string) {
	var rec struct {
		Prompt string
		Models []struct {
			File      string
			SHA256    string         `json:"sha256"`
			PromptIDs []int          `json:"prompt_ids"`
			Greedy    []int          `json:"greedy"`
			Top10     [][][2]float64 `json:"top10"`
		}
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "unit10", "testdata", record))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Prompt != unit10.ConformancePrompt {
		t.Fatalf("%s was recorded for prompt %q, not unit10.ConformancePrompt %q", record, rec.Prompt, unit10.ConformancePrompt)
	}
	specs, err := unit10.ConformanceSpecs(filepath.Join("..", "..", "unit04", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	moe, err := unit10.ConformanceMoESpecs(filepath.Join("..", "..", "unit04", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	specs = append(specs, moe...)
	dir := t.TempDir()
	for _, spec := range specs {
		t.Run(spec.Name, func(t *testing.T) {
			i := -1
			for j, m := range rec.Models {
				if m.File == spec.Name+".gguf" {
					i = j
				}
			}
			if i < 0 {
				t.Fatalf("%s has no record of %s.gguf", record, spec.Name)
			}
			r := rec.Models[i]
			var buf bytes.Buffer
			if err := unit10.Generate(&buf, spec); err != nil {
				t.Fatal(err)
			}
			if sum := sha256.Sum256(buf.Bytes()); hex.EncodeToString(sum[:]) != r.SHA256 {
				t.Fatalf("the generated %s is not the file llama.cpp ran (SHA-256 %x, recorded %s)", r.File, sum, r.SHA256)
			}
			path := filepath.Join(dir, r.File)
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			out := ok(t, "run", "-m", path, "--temp", "0", "--json", "-n", fmt.Sprint(unit10.ConformanceSteps), "-p", unit10.ConformancePrompt, "-ctk", cache, "-ctv", cache)
			got := decodeJSON[runJSON](t, out)
			if fmt.Sprint(got.PromptTokens) != fmt.Sprint(r.PromptIDs) {
				t.Fatalf("prompt tokens %v, llama.cpp's %v", got.PromptTokens, r.PromptIDs)
			}
			// unit10's tolerances: float activations for F32 and F16
			// weights, quantized ones otherwise.
			atol, rtol := 2e-2, 1.5e-2
			if spec.Matrix != unit01.F32 && spec.Matrix != unit01.F16 {
				rtol = 4e-2
			}
			// Identical until the sequences part, and they may part only at
			// a near-tie of llama.cpp's: to another of its ten best tokens
			// whose logit is within the tolerance of its choice's (twice the
			// band, as both sides may be off). Random models tie three ways
			// too (forge-qwen2-gpt2-q4_k at step 0: 31.44, 31.32, 31.22), and
			// llama.cpp's own F32 and F16 runs pick different ones there.
			// From there on each follows its own choice.
			same := 0
			for same < len(r.Greedy) && same < len(got.Tokens) && got.Tokens[same] == r.Greedy[same] {
				same++
			}
			if same < len(r.Greedy) {
				top := r.Top10[same]
				band := 2 * (atol + rtol*math.Abs(top[0][1]))
				tie := false
				for _, c := range top[1:] {
					if same < len(got.Tokens) && got.Tokens[same] == int(c[0]) && top[0][1]-c[1] <= band {
						tie = true
					}
				}
				if !tie {
					t.Fatalf("step %d: llm run --temp 0 chose %v, llama.cpp %d (logit %v; its ten best %v): not a near-tie (within %.3g of its choice)\n llm:       %v\n llama.cpp: %v",
						same, got.Tokens[min(same, len(got.Tokens)-1)], r.Greedy[same], top[0][1], top, band, got.Tokens, r.Greedy)
				}
			}
			t.Logf("%s, %s cache: the first %d of %d greedy tokens are llama.cpp's", spec.Name, cache, same, len(r.Greedy))
			if cache != "f16" {
				return
			}
			// Speculative decoding changes the passes, not the tokens: with
			// prompt lookup and with the model drafting for itself.
			for _, flags := range [][]string{{"--lookup"}, {"--model-draft", path, "--draft-max", "4"}} {
				args := append([]string{"run", "-m", path, "--temp", "0", "--json", "-n", fmt.Sprint(unit10.ConformanceSteps), "-p", unit10.ConformancePrompt}, flags...)
				spec := decodeJSON[runJSON](t, ok(t, args...))
				if fmt.Sprint(spec.Tokens) != fmt.Sprint(got.Tokens) {
					t.Errorf("llm run %v --temp 0: tokens\n %v\nwithout a drafter\n %v", flags, spec.Tokens, got.Tokens)
				}
			}
		})
	}
}
