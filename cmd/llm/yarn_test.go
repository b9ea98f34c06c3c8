package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit07"
	"github.com/llmforge/forge/unit08"
	"github.com/llmforge/forge/unit10"
)

// TestYarn: a Qwen2 model with YaRN from gen carries the rope.scaling keys
// (inspect shows them, and LoadConfig makes the Yarn back), and llm run
// --temp 0 is unit10.Greedy on it, which applies YaRN (unit10's conformance
// test checks that against llama.cpp); without its Yarn the model decodes
// other tokens.
func TestYarn(t *testing.T) {
	tinyModel(t) // skips on unwritten units
	path := filepath.Join(t.TempDir(), "qwen2-yarn.gguf")
	ok(t, "gen", "--shape", "qwen2-tiny-yarn", "--type", "q8_0", "--seed", "3", "-o", path)
	if out := ok(t, "inspect", path); !strings.Contains(out, "qwen2.rope.scaling.type") || !strings.Contains(out, "yarn") || !strings.Contains(out, "qwen2.rope.scaling.original_context_length") {
		t.Errorf("inspect of the YaRN model shows no rope.scaling keys:\n%s", out)
	}
	const prompt = "The rotary embedding of a long context"
	got := decodeJSON[runJSON](t, ok(t, "run", "-m", path, "-p", prompt, "-n", "12", "--temp", "0", "--json", "--ignore-eos", "-ctk", "f32", "-ctv", "f32"))
	m, err := unit10.Load(path, 64, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if diff := gocmp.Diff(unit05.NewYarn(4, 512), m.Model.Config.Yarn); diff != "" {
		t.Fatalf("unit10.Load of the qwen2-tiny-yarn model: Yarn (-want +got):\n%s", diff)
	}
	if _, _, err := unit08.UseCache(m.Model, unit08.CacheF32, unit08.CacheF32); err != nil {
		t.Fatal(err)
	}
	want, err := unit10.Greedy(unit07.NewSession(m.Model), got.PromptTokens, 12)
	if err != nil || fmt.Sprint(want) != fmt.Sprint(got.Tokens) {
		t.Errorf("llm run --temp 0 on the YaRN model chose %v, unit10.Greedy %v (%v)", got.Tokens, want, err)
	}
	c := m.Model.Config
	c.Yarn = nil
	plain, err := unit05.NewModel(c, m.Model.Weights, nil)
	if err != nil {
		t.Fatal(err)
	}
	if without, err := unit10.Greedy(unit07.NewSession(plain), got.PromptTokens, 12); err != nil || fmt.Sprint(without) == fmt.Sprint(got.Tokens) {
		t.Errorf("the YaRN model without its Yarn decodes %v (%v), the same as with it: the test model does not show YaRN", without, err)
	}
}
