package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit04"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit06"
	"github.com/llmforge/forge/unit10"
)

var genCommand = &command{
	name:     "gen",
	synopsis: "[--shape tiny] [--type q8_0] [--vocab gpt2] [--vocab-size N] [--seed 1] -o FILE",
	summary:  "write a seeded synthetic model of a named shape, so everything runs offline",
	setup:    setupGen,
	help: `
Shapes (--shape):
  tiny             llama, dim 256, 4 layers, 8 heads (4 KV), FFN 768,
                   context 2048: random weights (unit05.RandomWeights),
                   quantized; runs instantly
  tinyllama-1.1b   TinyLlama 1.1B: llama, dim 2048, 22 layers, 32 heads
                   (4 KV), FFN 5632, context 2048, rope base 10000
  llama-3.2-1b     Llama 3.2 1B: llama, dim 2048, 16 layers, 32 heads
                   (8 KV), FFN 8192, context 131072, rope base 500000,
                   tied embeddings, Llama 3's rope_freqs
  qwen2.5-0.5b     Qwen2.5 0.5B: qwen2, dim 896, 24 layers, 14 heads
                   (2 KV), FFN 4864, context 32768, rope base 1e6, q/k/v
                   biases, tied embeddings
  qwen2.5-7b-yarn  Qwen2.5 7B Instruct with the YaRN its model card gives
                   for 128k: qwen2, dim 3584, 28 layers, 28 heads (4 KV),
                   FFN 18944, context 131072, rope base 1e6, q/k/v biases,
                   rope.scaling yarn, factor 4 over an original context
                   of 32768
  qwen2-tiny-yarn  a small Qwen2 with YaRN: qwen2, dim 256, 4 layers, 8
                   heads (2 KV), FFN 768, context 2048, rope base 1e6,
                   q/k/v biases, YaRN factor 4 over an original context
                   of 512: random weights, quantized; runs instantly
  mixtral-tiny     a small Mixtral: llama, dim 256, 4 layers, 8 heads
                   (4 KV), 8 experts of FFN 512 with 2 used per token,
                   context 2048, rope base 1e6: random weights
                   (unit06.RandomWeights), quantized; runs instantly
  qwen1.5-moe-a2.7b  Qwen1.5-MoE-A2.7B: qwen2moe, dim 2048, 24 layers, 16
                   heads (16 KV), 60 experts of FFN 1408 with 4 used, a
                   shared expert of FFN 5632, context 8192, rope base 1e6,
                   q/k/v biases (14.3B parameters, 2.7B used per token)
The named shapes have their models' hyper-parameters and sizes but random
quantized blocks for weights (written in seconds): they compute nonsense
at the real models' speed, for llm bench. The vocabulary comes from
--vocab, the GPT-2 (50257 tokens) or Phi-3 SentencePiece (32064 tokens)
vocabulary in unit04/testdata, so a real model's vocabulary size (32000,
128256, 151936) is not reproduced, nor is the output matrix's size: give
--vocab-file a real model's GGUF to copy its vocabulary instead, or
--vocab-size N to pad the vocabulary with unused tokens ("[PAD50257]",
as llama.cpp's converter pads Qwen's) up to the real model's size, so that
the embedding and output matrices have their real size: 128256 for Llama
3.2, 151936 for Qwen2.5. The
vocabulary's chat template (tokenizer.chat_template: Phi-3's for spm, none
for gpt2) is copied with it. The vocabulary files are found by walking up
from llm's directory and from the working directory to the Forge
repository's go.mod.

` + typeRuleHelp + `

The same --seed writes the same file, byte for byte. Example:
  llm gen --shape tinyllama-1.1b --type q4_0 -o /tmp/tinyllama-q4_0.gguf`,
}

// A shape is a model gen can write.
type shape struct {
	name    string
	arch    string
	config  unit05.Config // Vocab comes from the vocabulary
	experts unit06.Config // a mixture of experts when Experts > 0
	random  bool          // RandomBlocks: random quantized blocks, not quantized random weights
}

var shapes = []shape{
	{name: "tiny", arch: "llama", config: unit05.Config{Dim: 256, Layers: 4, Heads: 8, KVHeads: 4, HeadDim: 32, FFN: 768,
		MaxSeq: 2048, RopeBase: 10000, RMSEps: 1e-5}},
	{name: "tinyllama-1.1b", arch: "llama", random: true, config: unit05.Config{Dim: 2048, Layers: 22, Heads: 32, KVHeads: 4,
		HeadDim: 64, FFN: 5632, MaxSeq: 2048, RopeBase: 10000, RMSEps: 1e-5}},
	{name: "llama-3.2-1b", arch: "llama", random: true, config: unit05.Config{Dim: 2048, Layers: 16, Heads: 32, KVHeads: 8,
		HeadDim: 64, FFN: 8192, MaxSeq: 131072, RopeBase: 500000, RMSEps: 1e-5, TiedEmbeddings: true,
		RopeFactors: unit10.Llama3RopeFactors(64, 500000, 32, 1, 4, 8192)}}, // its config.json's rope_scaling
	{name: "qwen2.5-0.5b", arch: "qwen2", random: true, config: unit05.Config{Dim: 896, Layers: 24, Heads: 14, KVHeads: 2,
		HeadDim: 64, FFN: 4864, MaxSeq: 32768, RopeBase: 1e6, RMSEps: 1e-6, TiedEmbeddings: true, QKVBias: true}},
	{name: "qwen2.5-7b-yarn", arch: "qwen2", random: true, config: unit05.Config{Dim: 3584, Layers: 28, Heads: 28, KVHeads: 4,
		HeadDim: 128, FFN: 18944, MaxSeq: 131072, RopeBase: 1e6, RMSEps: 1e-6, QKVBias: true,
		Yarn: unit05.NewYarn(4, 32768)}}, // its model card's rope_scaling for contexts beyond 32768
	{name: "qwen2-tiny-yarn", arch: "qwen2", config: unit05.Config{Dim: 256, Layers: 4, Heads: 8, KVHeads: 2, HeadDim: 32, FFN: 768,
		MaxSeq: 2048, RopeBase: 1e6, RMSEps: 1e-6, QKVBias: true, Yarn: unit05.NewYarn(4, 512)}},
	{name: "mixtral-tiny", arch: "llama", config: unit05.Config{Dim: 256, Layers: 4, Heads: 8, KVHeads: 4, HeadDim: 32, FFN: 512,
		MaxSeq: 2048, RopeBase: 1e6, RMSEps: 1e-5}, experts: unit06.Config{Experts: 8, Used: 2, FFN: 512, Renormalize: true}},
	{name: "qwen1.5-moe-a2.7b", arch: "qwen2moe", random: true, config: unit05.Config{Dim: 2048, Layers: 24, Heads: 16, KVHeads: 16,
		HeadDim: 128, FFN: 5632, MaxSeq: 8192, RopeBase: 1e6, RMSEps: 1e-6, QKVBias: true},
		experts: unit06.Config{Experts: 60, Used: 4, FFN: 1408, SharedFFN: 5632}},
}

func shapeNames() []string {
	var names []string
	for _, s := range shapes {
		names = append(names, s.name)
	}
	return names
}

// vocabFiles are --vocab's choices: files of the Forge repository.
var vocabFiles = map[string]string{
	"gpt2": "unit04/testdata/ggml-vocab-gpt-2.gguf",
	"spm":  "unit04/testdata/ggml-vocab-phi-3.gguf",
}

type genOptions struct {
	shape, typ, vocab string
	vocabFile, out    string
	vocabSize         int // --vocab-size: pad the vocabulary to this many tokens; 0: as it is
	seed              uint64
	threads           int
}

func setupGen(fs *flagSet) func(*env) error {
	o := &genOptions{shape: "tiny", typ: "q8_0", vocab: "gpt2", seed: 1, threads: defaultThreads()}
	fs.choice(&o.shape, "shape", "NAME", "the model's shape: "+strings.Join(shapeNames(), ", ")+" (default tiny)", shapeNames())
	fs.choice(&o.typ, "type", "TYPE", "the weights' type: "+strings.Join(fileTypeNames(), ", ")+" (default q8_0)", fileTypeNames())
	fs.choice(&o.vocab, "vocab", "NAME", "the vocabulary: gpt2 (byte-level BPE) or spm (SentencePiece) (default gpt2)", []string{"gpt2", "spm"})
	fs.str(&o.vocabFile, "vocab-file", "FILE", "take the vocabulary from this GGUF file instead (a real model's, say)")
	fs.integer(&o.vocabSize, "vocab-size", "N", "pad the vocabulary with unused tokens up to N (a real model's size, for llm bench)", atLeast(1))
	fs.add("s,seed", "N", "the random seed (default 1)", false, func(v string) error {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("want an integer ≥ 0")
		}
		o.seed = s
		return nil
	})
	fs.str(&o.out, "o,output", "FILE", "the file to write")
	fs.integer(&o.threads, "t,threads", "N", fmt.Sprintf("threads for quantizing (default %d, the CPUs; at most %d)", defaultThreads(), maxThreads), threadCount)
	return func(e *env) error { return doGen(e, o) }
}

func doGen(e *env, o *genOptions) error {
	if len(e.args) > 0 {
		return usagef("unexpected argument %q (the output goes after -o)", e.args[0])
	}
	if err := checkOutput(o.out); err != nil {
		return err
	}
	var sh shape
	for _, s := range shapes {
		if s.name == o.shape {
			sh = s
		}
	}
	ft, _ := lookupFileType(o.typ)
	vocabPath, vocabName := o.vocabFile, filepath.Base(o.vocabFile)
	if vocabPath == "" {
		rel := vocabFiles[o.vocab]
		p, err := findRepoFile(rel)
		if err != nil {
			return usagef("cannot find the %s vocabulary, %s of the Forge repository: run llm inside the repository or give --vocab-file FILE", o.vocab, rel)
		}
		vocabPath, vocabName = p, o.vocab
	}
	v, chat, err := readVocab(vocabPath)
	if err != nil {
		return err
	}
	if o.vocabSize > 0 {
		if o.vocabSize < len(v.Tokens) {
			return usagef("--vocab-size %d: the %s vocabulary has %d tokens already; it can be padded, not cut", o.vocabSize, vocabName, len(v.Tokens))
		}
		padVocab(v, o.vocabSize)
	}

	start := time.Now()
	c := sh.config
	c.Vocab = len(v.Tokens)
	spec := unit10.ModelSpec{Name: fmt.Sprintf("forge %s %s", sh.name, ft.name), Arch: sh.arch, Config: c, Experts: sh.experts, Vocab: v,
		ChatTemplate: chat, Seed: o.seed, RandomBlocks: sh.random}
	spec.Matrix, spec.Embed, spec.Output = sourceTypes(sh, c, ft)
	defer removeOnInterrupt(e)()

	// Generate writes the model with one type for all layer matrices;
	// convertFile then gives each tensor its type by the rule and sets
	// general.file_type.
	e.progress.show("generating %s (%s)...", sh.name, ft.name)
	tmp := filepath.Join(filepath.Dir(o.out), fmt.Sprintf(".%s.gen-%d", filepath.Base(o.out), os.Getpid()))
	e.temps.add(tmp)
	defer e.temps.remove(tmp)
	if err := writeAtomically(e.temps, tmp, func(w io.Writer) error { return unit10.Generate(w, spec) }); err != nil {
		return err
	}
	tensors, err := convertFile(e, tmp, o.out, ft, o.threads)
	if err != nil {
		return err
	}
	var params, bytes int64
	for _, t := range tensors {
		n := int64(1)
		for _, d := range t.Dims {
			n *= int64(d)
		}
		params += n
		bytes += int64(len(t.Data))
	}
	fmt.Fprintf(e.stderr, "llm gen: wrote %s: %s (%s, %d layers, dim %d, vocabulary %s of %d tokens), %s, %s parameters, %s, in %.1f s\n",
		o.out, sh.name, sh.arch, c.Layers, c.Dim, vocabName, c.Vocab, ft.name, formatCount(params), formatBytes(bytes), time.Since(start).Seconds())
	return nil
}

// padVocab appends unused tokens "[PADi]" (i their id) to v up to n, as
// llama.cpp's converter pads a vocabulary to the size of a model's
// embedding matrix; the tokenizer never produces them.
func padVocab(v *unit04.Vocab, n int) {
	if v.Types == nil {
		v.Types = make([]int32, len(v.Tokens))
		for i := range v.Types {
			v.Types[i] = unit04.TypeNormal
		}
	}
	for i := len(v.Tokens); i < n; i++ {
		v.Tokens = append(v.Tokens, fmt.Sprintf("[PAD%d]", i))
		v.Types = append(v.Types, unit04.TypeUnused)
		if v.Scores != nil {
			v.Scores = append(v.Scores, -1e9)
		}
	}
}

// readVocab reads the vocabulary of a GGUF file, and its chat template
// ("" if it has none).
func readVocab(path string) (*unit04.Vocab, string, error) {
	f, err := unit10.Open(path)
	if err != nil {
		return nil, "", badInput(err)
	}
	defer f.Close()
	v, err := unit10.LoadVocab(f)
	if err != nil {
		return nil, "", badInput(err)
	}
	chat, _ := f.String("tokenizer.chat_template") // absent: no template
	return v, chat, nil
}

// sourceTypes chooses the types Generate writes: the rule's types for the
// embeddings and the output, and for the layer matrices the one type the
// rule gives them all. Where the rule mixes types (q4_k_m, fallbacks),
// the layer matrices are written in float32 for a model of random weights,
// so that each is quantized once, from the weights; and for random blocks
// in the most common type that fits every layer matrix, the rest converted.
func sourceTypes(sh shape, c unit05.Config, ft fileType) (matrix, embed, output unit01.DType) {
	l := layout{layers: c.Layers, tied: c.TiedEmbeddings}
	two := func(name string, in, out int) unit10.TensorInfo {
		return unit10.TensorInfo{Name: name, Dims: []uint64{uint64(in), uint64(out)}}
	}
	embed, _ = ft.plan(two("token_embd.weight", c.Dim, c.Vocab), l)
	output, _ = ft.plan(two("output.weight", c.Dim, c.Vocab), l)
	var layer []unit10.TensorInfo
	for i := range c.Layers {
		p := fmt.Sprintf("blk.%d.", i)
		layer = append(layer,
			two(p+"attn_q.weight", c.Dim, c.QDim()), two(p+"attn_k.weight", c.Dim, c.KVDim()),
			two(p+"attn_v.weight", c.Dim, c.KVDim()), two(p+"attn_output.weight", c.QDim(), c.Dim))
		e := sh.experts
		switch {
		case e.Experts == 0:
			layer = append(layer, two(p+"ffn_gate.weight", c.Dim, c.FFN), two(p+"ffn_up.weight", c.Dim, c.FFN),
				two(p+"ffn_down.weight", c.FFN, c.Dim))
		default: // the expert matrices (the router stays F32); only ne[0] matters to the rule
			layer = append(layer, two(p+"ffn_gate_exps.weight", c.Dim, e.FFN), two(p+"ffn_up_exps.weight", c.Dim, e.FFN),
				two(p+"ffn_down_exps.weight", e.FFN, c.Dim))
			if e.SharedFFN > 0 {
				layer = append(layer, two(p+"ffn_gate_shexp.weight", c.Dim, e.SharedFFN), two(p+"ffn_up_shexp.weight", c.Dim, e.SharedFFN),
					two(p+"ffn_down_shexp.weight", e.SharedFFN, c.Dim))
			}
		}
	}
	count := map[unit01.DType]int{}
	for _, t := range layer {
		got, _ := ft.plan(t, l)
		count[got]++
	}
	if len(count) == 1 {
		for t := range count {
			return t, embed, output
		}
	}
	if !sh.random {
		return unit01.F32, embed, output
	}
	best, bestN := unit01.F16, 0
	for t, n := range count {
		fits := true
		for _, info := range layer {
			fits = fits && info.Dims[0]%uint64(t.BlockSize()) == 0
		}
		if fits && (n > bestN || n == bestN && t < best) {
			best, bestN = t, n
		}
	}
	return best, embed, output
}
