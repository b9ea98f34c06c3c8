package unit10

import (
	"math/rand/v2"
	"path/filepath"

	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit04"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit06"
)

// This file is given: the models of challenge 10.5, which llama.cpp and
// Forge must run alike. ci/ggufref writes them with Generate and records
// llama.cpp's tokens and logits into unit10/testdata/llamacpp-models.json;
// the tests write them again and check that the bytes are the same
// (SHA-256) before comparing.

// ConformancePrompt is the text every conformance model is given.
const ConformancePrompt = "The quick brown fox jumps over the lazy dog. Numbers: 12345, and a question?"

// ConformanceSteps is the number of greedy tokens compared.
const ConformanceSteps = 32

// ConformanceSpecs returns the conformance models: both architectures,
// both tokenizer families (the GPT-2 and Phi-3 vocabularies in vocabDir,
// unit04/testdata), and the weight types of the files people download.
func ConformanceSpecs(vocabDir string) ([]ModelSpec, error) {
	spm, err := vocabFile(filepath.Join(vocabDir, "ggml-vocab-phi-3.gguf"))
	if err != nil {
		return nil, err
	}
	bpe, err := vocabFile(filepath.Join(vocabDir, "ggml-vocab-gpt-2.gguf"))
	if err != nil {
		return nil, err
	}
	shape := func(dim, layers, heads, kvHeads, ffn int, tied bool) unit05.Config {
		return unit05.Config{Dim: dim, Layers: layers, Heads: heads, KVHeads: kvHeads, HeadDim: dim / heads, FFN: ffn,
			MaxSeq: 128, RopeBase: 10000, RMSEps: 1e-5, TiedEmbeddings: tied}
	}
	return []ModelSpec{
		{Name: "forge-llama-spm-f32", Arch: "llama", Config: shape(64, 2, 4, 2, 128, false), Vocab: spm,
			Matrix: unit01.F32, Embed: unit01.F32, Output: unit01.F32, LogitScale: 8, Seed: 1},
		{Name: "forge-llama-spm-q4_0", Arch: "llama", Config: shape(256, 2, 8, 2, 512, false), Vocab: spm,
			Matrix: unit01.Q4_0, Embed: unit01.Q4_0, Output: unit01.Q6_K, LogitScale: 8, Seed: 2},
		{Name: "forge-llama-gpt2-q8_0", Arch: "llama", Config: shape(128, 2, 4, 4, 256, false), Vocab: bpe,
			Matrix: unit01.Q8_0, Embed: unit01.F16, Output: unit01.Q8_0, LogitScale: 8, Seed: 3},
		{Name: "forge-qwen2-gpt2-q4_k", Arch: "qwen2", Config: shape(256, 2, 8, 2, 512, true), Vocab: bpe,
			Matrix: unit01.Q4_K, Embed: unit01.Q6_K, LogitScale: 8, Seed: 4},
		{Name: "forge-qwen2-spm-f16", Arch: "qwen2", Config: shape(64, 2, 4, 1, 128, false), Vocab: spm,
			Matrix: unit01.F16, Embed: unit01.F16, Output: unit01.F16, LogitScale: 8, Seed: 5},
		{Name: "forge-llama3-rope-gpt2-q8_0", Arch: "llama", Config: llama3Rope(shape(128, 2, 4, 2, 256, true)), Vocab: bpe,
			Matrix: unit01.Q8_0, Embed: unit01.Q8_0, LogitScale: 8, Seed: 7},
		{Name: "forge-qwen2-yarn-spm-f32", Arch: "qwen2", Config: qwenYarn(shape(64, 2, 2, 1, 128, false)), Vocab: spm,
			Matrix: unit01.F32, Embed: unit01.F32, Output: unit01.F32, LogitScale: 8, Seed: 8},
	}, nil
}

// qwenYarn gives c Qwen2.5's long-context RoPE: base 10⁶ and YaRN of
// factor 4 (rope.scaling.type yarn), over an original context of 32
// instead of Qwen2.5's 32768, so that the conformance run's 50-odd
// positions reach past it; its interpolated pairs turn 4 times more
// slowly, and the attention is sharpened by (1 + 0.1·ln 4)².
func qwenYarn(c unit05.Config) unit05.Config {
	c.RopeBase = 1e6
	c.Yarn = unit05.NewYarn(4, 32)
	return c
}

// llama3Rope gives c Llama 3.2's RoPE: base 500000 and a rope_freqs
// tensor, with Llama 3's scaling rule set for a context of 32 (factor 8,
// low and high frequency factors 1 and 4) so that the interpolated pairs
// turn visibly within the conformance prompt's few dozen positions.
func llama3Rope(c unit05.Config) unit05.Config {
	c.RopeBase = 500000
	c.RopeFactors = Llama3RopeFactors(c.HeadDim, c.RopeBase, 8, 1, 4, 32)
	return c
}

// ConformanceMoESpecs returns the mixture-of-experts conformance models of
// challenge 10.6: Mixtral's layout (GGUF llama with experts: softmax over
// the experts, top-2, renormalised) in F32, Q8_0 and Q4_0, and
// Qwen2-MoE's (qwen2moe: top-k without renormalisation and a shared
// expert behind a sigmoid gate; llama.cpp requires its output.weight) in
// Q8_0, with both vocabularies.
func ConformanceMoESpecs(vocabDir string) ([]ModelSpec, error) {
	spm, err := vocabFile(filepath.Join(vocabDir, "ggml-vocab-phi-3.gguf"))
	if err != nil {
		return nil, err
	}
	bpe, err := vocabFile(filepath.Join(vocabDir, "ggml-vocab-gpt-2.gguf"))
	if err != nil {
		return nil, err
	}
	shape := func(dim, layers, heads, kvHeads, ffn int, tied bool) unit05.Config {
		return unit05.Config{Dim: dim, Layers: layers, Heads: heads, KVHeads: kvHeads, HeadDim: dim / heads, FFN: ffn,
			MaxSeq: 128, RopeBase: 1e6, RMSEps: 1e-5, TiedEmbeddings: tied}
	}
	mixtral := func(experts, ffn int) unit06.Config {
		return unit06.Config{Experts: experts, Used: 2, FFN: ffn, Renormalize: true}
	}
	return []ModelSpec{
		{Name: "forge-mixtral-spm-f32", Arch: "llama", Config: shape(64, 2, 4, 2, 128, false), Experts: mixtral(4, 128), Vocab: spm,
			Matrix: unit01.F32, Embed: unit01.F32, Output: unit01.F32, LogitScale: 8, Seed: 21},
		{Name: "forge-mixtral-gpt2-q8_0", Arch: "llama", Config: shape(128, 2, 4, 4, 256, false), Experts: mixtral(8, 256), Vocab: bpe,
			Matrix: unit01.Q8_0, Embed: unit01.F16, Output: unit01.Q8_0, LogitScale: 8, Seed: 22},
		{Name: "forge-mixtral-spm-q4_0", Arch: "llama", Config: shape(256, 2, 8, 2, 512, false), Experts: mixtral(8, 512), Vocab: spm,
			Matrix: unit01.Q4_0, Embed: unit01.Q4_0, Output: unit01.Q6_K, LogitScale: 8, Seed: 23},
		{Name: "forge-qwen2moe-gpt2-q8_0", Arch: "qwen2moe", Config: shape(128, 2, 4, 2, 256, false), Vocab: bpe,
			Experts: unit06.Config{Experts: 8, Used: 2, FFN: 64, SharedFFN: 256}, Matrix: unit01.Q8_0, Embed: unit01.Q8_0, Output: unit01.Q8_0, LogitScale: 8, Seed: 24},
	}, nil
}

// ConformanceLongTokens is the length of the long-context sequence the
// long conformance models are teacher-forced on: past llama.cpp's batch of
// 512, at a width where a model meets many near ties (see
// ConformanceLongSpecs).
const ConformanceLongTokens = 640

// ConformanceLongEvery: llama.cpp's top 10 are recorded at every
// ConformanceLongEvery-th position of the long sequence (0, 8, 16, ...)
// and at its last, which keeps the recording small.
const ConformanceLongEvery = 8

// ConformanceLongSpecs returns the long-context conformance models: one
// llama model of width 256 (8 query and 2 KV heads, 4 layers, FFN 768, a
// context of 1024) with the Phi-3 vocabulary, in F32 and in Q8_0 (every
// matrix, token_embd and output included, as llama.cpp's quantizer writes
// a Q8_0 file). Both have the same random weights (seed 6): the Q8_0 file
// is the F32 one quantized.
func ConformanceLongSpecs(vocabDir string) ([]ModelSpec, error) {
	spm, err := vocabFile(filepath.Join(vocabDir, "ggml-vocab-phi-3.gguf"))
	if err != nil {
		return nil, err
	}
	c := unit05.Config{Dim: 256, Layers: 4, Heads: 8, KVHeads: 2, HeadDim: 32, FFN: 768,
		MaxSeq: 1024, RopeBase: 10000, RMSEps: 1e-5}
	return []ModelSpec{
		{Name: "forge-long-llama-spm-f32", Arch: "llama", Config: c, Vocab: spm,
			Matrix: unit01.F32, Embed: unit01.F32, Output: unit01.F32, LogitScale: 8, Seed: 6},
		{Name: "forge-long-llama-spm-q8_0", Arch: "llama", Config: c, Vocab: spm,
			Matrix: unit01.Q8_0, Embed: unit01.Q8_0, Output: unit01.Q8_0, LogitScale: 8, Seed: 6},
	}, nil
}

// ConformanceLongPrompt returns the long sequence for vocabulary v: BOS,
// then n−1 ids drawn at random (seeded, the same on every machine) from
// the vocabulary's normal tokens (not byte, control or added ones). The
// engines are given ids, not text, so no tokenizer is involved.
func ConformanceLongPrompt(v *unit04.Vocab, n int) []int {
	g := rand.New(rand.NewPCG(7, 0x6c6f6e67)) // "long"
	ids := []int{v.BOS}
	for len(ids) < n {
		if id := g.IntN(len(v.Tokens)); v.Types == nil || v.Types[id] == unit04.TypeNormal {
			ids = append(ids, id)
		}
	}
	return ids
}

// ConformanceLongPositions returns the positions of a sequence of n tokens
// whose next-token logits are compared: every ConformanceLongEvery-th, and
// the last.
func ConformanceLongPositions(n int) []int {
	var ps []int
	for p := 0; p < n; p += ConformanceLongEvery {
		ps = append(ps, p)
	}
	if ps[len(ps)-1] != n-1 {
		ps = append(ps, n-1)
	}
	return ps
}

// vocabFile reads a vocabulary-only GGUF file.
func vocabFile(path string) (*unit04.Vocab, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return LoadVocab(f)
}
