package unit10

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit04"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit06"
	"github.com/llmforge/forge/unit09"
)

// This file is given: a generator of synthetic GGUF models, so that every
// path of the engine runs offline, on files llama.cpp also loads (10.5),
// at any size (10.7), with or without experts (10.6). It is built on your
// Write (10.3), unit05's and unit06's RandomWeights and unit09's
// QuantizeRow.

// ModelSpec describes a synthetic model.
type ModelSpec struct {
	Name string // general.name
	Arch string // "llama", "qwen2" or "qwen2moe"
	// Config is the shape: Vocab comes from Vocab, MaxSeq is the context
	// length, RopeFactors become rope_freqs.weight, and Yarn the
	// rope.scaling keys of type "yarn" (with ggml's betas, 32 and 1: no
	// key carries others to llama.cpp for these architectures).
	Config unit05.Config
	// Experts makes every layer a mixture of experts (Experts.Experts > 0;
	// required for qwen2moe, which also needs a SharedFFN): Mixtral's
	// layout for llama, Qwen2-MoE's for qwen2moe. The routers are F32, as
	// llama.cpp's quantizer leaves them; the experts have type Matrix.
	Experts unit06.Config
	Vocab   *unit04.Vocab // the tokenizer, written under tokenizer.ggml.*
	// ChatTemplate, when not empty, is written as tokenizer.chat_template.
	ChatTemplate string
	Matrix       unit01.DType // the type of every 2-D weight but the two below
	Embed        unit01.DType // token_embd's type
	Output       unit01.DType // output's type (unused when Config.TiedEmbeddings)
	// LogitScale multiplies the output projection (for a tied model, the
	// embeddings, which are its output projection): random models have
	// flat logits, where llama.cpp and Forge could round a near-tie
	// differently; a larger scale makes the greedy choices clearer.
	LogitScale float32
	Seed       uint64
	// RandomBlocks fills the weight matrices with random well-formed
	// blocks instead of quantizing random weights: the model computes
	// nonsense, but a file of gigabytes is written in seconds (10.7).
	RandomBlocks bool
}

// Generate writes the model spec describes as a GGUF file: norms and
// biases in F32, the rest in the spec's types, metadata as gguf-py writes
// it for the architecture.
func Generate(w io.Writer, spec ModelSpec) error {
	c := spec.Config
	c.Vocab = len(spec.Vocab.Tokens)
	moe := spec.Experts.Experts > 0
	switch {
	case spec.Arch != "llama" && spec.Arch != "qwen2" && spec.Arch != "qwen2moe":
		return fmt.Errorf("generate: architecture %q, want llama, qwen2 or qwen2moe", spec.Arch)
	case spec.Arch == "qwen2moe" && (!moe || spec.Experts.SharedFFN == 0):
		return fmt.Errorf("generate: a qwen2moe model needs experts and a shared expert, got %+v", spec.Experts)
	case moe && spec.Arch == "qwen2":
		return fmt.Errorf("generate: a qwen2 model has no experts (Qwen2-MoE is qwen2moe)")
	case moe && spec.Arch == "llama" && spec.Experts.SharedFFN > 0:
		return fmt.Errorf("generate: a llama (Mixtral) model has no shared expert")
	}
	if moe {
		if err := spec.Experts.Validate(); err != nil {
			return fmt.Errorf("generate: %w", err)
		}
	}
	if y := c.Yarn; y != nil && (y.BetaFast != 32 || y.BetaSlow != 1) {
		return fmt.Errorf("generate: YaRN betas %v and %v: llama.cpp reads no yarn_beta keys for %s, and uses 32 and 1", y.BetaFast, y.BetaSlow, spec.Arch)
	}
	c.Rope = unit05.RopeNorm
	if spec.Arch != "llama" {
		c.Rope = unit05.RopeNeox
	}
	tensors, err := genTensors(spec, c)
	if err != nil {
		return err
	}
	return Write(w, genMetadata(spec, c), tensors)
}

func genMetadata(spec ModelSpec, c unit05.Config) []KV {
	a := spec.Arch
	u32 := func(k string, v int) KV { return KV{Key: k, Type: TypeUint32, Value: uint32(v)} }
	f32 := func(k string, v float64) KV { return KV{Key: k, Type: TypeFloat32, Value: float32(v)} }
	str := func(k, v string) KV { return KV{Key: k, Type: TypeString, Value: v} }
	kvs := []KV{
		str("general.architecture", a),
		str("general.name", spec.Name),
		u32(a+".context_length", c.MaxSeq),
		u32(a+".embedding_length", c.Dim),
		u32(a+".block_count", c.Layers),
		u32(a+".feed_forward_length", c.FFN),
		u32(a+".attention.head_count", c.Heads),
		u32(a+".attention.head_count_kv", c.KVHeads),
		u32(a+".rope.dimension_count", c.HeadDim),
		f32(a+".rope.freq_base", c.RopeBase),
		f32(a+".attention.layer_norm_rms_epsilon", float64(c.RMSEps)),
	}
	if y := c.Yarn; y != nil { // as convert_hf_to_gguf.py writes a rope_scaling of type yarn
		kvs = append(kvs, str(a+".rope.scaling.type", "yarn"), f32(a+".rope.scaling.factor", y.Factor),
			u32(a+".rope.scaling.original_context_length", y.OrigCtx))
		if y.AttnFactor != 1 {
			kvs = append(kvs, f32(a+".rope.scaling.attn_factor", y.AttnFactor))
		}
	}
	if e := spec.Experts; e.Experts > 0 {
		kvs = append(kvs, u32(a+".expert_count", e.Experts), u32(a+".expert_used_count", e.Used))
		if a == "qwen2moe" {
			kvs = append(kvs, u32(a+".expert_feed_forward_length", e.FFN), u32(a+".expert_shared_feed_forward_length", e.SharedFFN))
		}
	}
	v := spec.Vocab
	kvs = append(kvs, str("tokenizer.ggml.model", v.Model))
	if v.Pre != "" {
		kvs = append(kvs, str("tokenizer.ggml.pre", v.Pre))
	}
	if spec.ChatTemplate != "" {
		kvs = append(kvs, str("tokenizer.chat_template", spec.ChatTemplate))
	}
	kvs = append(kvs, KV{Key: "tokenizer.ggml.tokens", Type: TypeArray, Elem: TypeString, Value: v.Tokens})
	if v.Scores != nil {
		kvs = append(kvs, KV{Key: "tokenizer.ggml.scores", Type: TypeArray, Elem: TypeFloat32, Value: v.Scores})
	}
	if v.Types != nil {
		kvs = append(kvs, KV{Key: "tokenizer.ggml.token_type", Type: TypeArray, Elem: TypeInt32, Value: v.Types})
	}
	if v.Merges != nil {
		kvs = append(kvs, KV{Key: "tokenizer.ggml.merges", Type: TypeArray, Elem: TypeString, Value: v.Merges})
	}
	for _, id := range []struct {
		key string
		v   int
	}{{"tokenizer.ggml.bos_token_id", v.BOS}, {"tokenizer.ggml.eos_token_id", v.EOS}, {"tokenizer.ggml.unknown_token_id", v.UNK}} {
		if id.v >= 0 {
			kvs = append(kvs, u32(id.key, id.v))
		}
	}
	kvs = append(kvs,
		KV{Key: "tokenizer.ggml.add_bos_token", Type: TypeBool, Value: v.AddBOS},
		KV{Key: "tokenizer.ggml.add_eos_token", Type: TypeBool, Value: v.AddEOS})
	if v.Model == "llama" {
		kvs = append(kvs, KV{Key: "tokenizer.ggml.add_space_prefix", Type: TypeBool, Value: v.AddSpacePrefix})
	}
	return kvs
}

func genTensors(spec ModelSpec, c unit05.Config) ([]Tensor, error) {
	// Random weights, or (RandomBlocks) a model whose matrices are all nil:
	// matrix fills those with random blocks, vector with ones.
	w := &unit05.Weights{Layers: make([]unit05.Layer, c.Layers)}
	e := spec.Experts
	switch {
	case spec.RandomBlocks:
	case e.Experts > 0:
		var err error
		if w, err = unit06.RandomWeights(c, e, spec.Seed); err != nil {
			return nil, err
		}
	default:
		var err error
		if w, err = unit05.RandomWeights(c, spec.Seed); err != nil {
			return nil, err
		}
	}
	g := rand.New(rand.NewPCG(spec.Seed, 0x67656e)) // "gen"
	var out []Tensor
	var failed error
	// quantize returns m's rows in type dt (random blocks for a nil m).
	quantize := func(name string, m unit05.Matrix, rows, cols int, dt unit01.DType, scale float32) []byte {
		rb, err := dt.RowBytes(cols)
		if err != nil {
			failed = fmt.Errorf("generate: %s: %w", name, err)
			return nil
		}
		data := make([]byte, rows*rb)
		if m == nil {
			randomBlocks(g, dt, data)
			return data
		}
		row := make([]float32, cols)
		for i := range rows {
			m.Row(row, i)
			for j := range row {
				row[j] *= scale
			}
			if err := unit09.QuantizeRow(dt, data[i*rb:(i+1)*rb], row); err != nil {
				failed = fmt.Errorf("generate: %s: %w", name, err)
				return nil
			}
		}
		return data
	}
	matrix := func(name string, m unit05.Matrix, rows, cols int, dt unit01.DType, scale float32) {
		data := quantize(name, m, rows, cols, dt, scale)
		out = append(out, Tensor{Name: name, Dims: []uint64{uint64(cols), uint64(rows)}, Type: dt, Data: data})
	}
	// experts writes one matrix per expert as a 3-D tensor {cols, rows,
	// experts}: expert i's rows after expert i−1's.
	experts := func(name string, ms []unit05.Matrix, rows, cols int, dt unit01.DType) {
		var data []byte
		for i := range e.Experts {
			var m unit05.Matrix
			if ms != nil {
				m = ms[i]
			}
			data = append(data, quantize(name, m, rows, cols, dt, 1)...)
		}
		out = append(out, Tensor{Name: name, Dims: []uint64{uint64(cols), uint64(rows), uint64(e.Experts)}, Type: dt, Data: data})
	}
	vector := func(name string, v []float32, n int) {
		data := make([]byte, 4*n)
		for i := range n {
			x := float32(1)
			if v != nil {
				x = v[i]
			}
			binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(x))
		}
		out = append(out, Tensor{Name: name, Dims: []uint64{uint64(n)}, Type: unit01.F32, Data: data})
	}
	bias := func(n int) []float32 { // Qwen2's biases: RandomWeights has none for llama
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(0.1 * g.NormFloat64())
		}
		return v
	}

	scale := spec.LogitScale
	if scale == 0 {
		scale = 1
	}
	embedScale := float32(1)
	if c.TiedEmbeddings {
		embedScale = scale
	}
	matrix("token_embd.weight", w.Embed, c.Vocab, c.Dim, spec.Embed, embedScale)
	if c.RopeFactors != nil { // Llama 3's RoPE frequency factors, as its converter writes them
		vector("rope_freqs.weight", c.RopeFactors, c.HeadDim/2)
	}
	for i, l := range w.Layers {
		p := fmt.Sprintf("blk.%d.", i)
		vector(p+"attn_norm.weight", l.AttnNorm, c.Dim)
		matrix(p+"attn_q.weight", l.Wq, c.QDim(), c.Dim, spec.Matrix, 1)
		matrix(p+"attn_k.weight", l.Wk, c.KVDim(), c.Dim, spec.Matrix, 1)
		matrix(p+"attn_v.weight", l.Wv, c.KVDim(), c.Dim, spec.Matrix, 1)
		if spec.Arch != "llama" {
			vector(p+"attn_q.bias", bias(c.QDim()), c.QDim())
			vector(p+"attn_k.bias", bias(c.KVDim()), c.KVDim())
			vector(p+"attn_v.bias", bias(c.KVDim()), c.KVDim())
		}
		matrix(p+"attn_output.weight", l.Wo, c.Dim, c.QDim(), spec.Matrix, 1)
		vector(p+"ffn_norm.weight", l.FFNNorm, c.Dim)
		if e.Experts == 0 {
			matrix(p+"ffn_gate.weight", l.Gate, c.FFN, c.Dim, spec.Matrix, 1)
			matrix(p+"ffn_up.weight", l.Up, c.FFN, c.Dim, spec.Matrix, 1)
			matrix(p+"ffn_down.weight", l.Down, c.Dim, c.FFN, spec.Matrix, 1)
			continue
		}
		mw := &unit06.Weights{}
		if l.MoE != nil {
			mw = l.MoE.(*unit06.MoE).Weights()
		}
		matrix(p+"ffn_gate_inp.weight", mw.Router, e.Experts, c.Dim, unit01.F32, 1)
		experts(p+"ffn_gate_exps.weight", mw.Gate, e.FFN, c.Dim, spec.Matrix)
		experts(p+"ffn_up_exps.weight", mw.Up, e.FFN, c.Dim, spec.Matrix)
		experts(p+"ffn_down_exps.weight", mw.Down, c.Dim, e.FFN, spec.Matrix)
		if e.SharedFFN > 0 {
			vector(p+"ffn_gate_inp_shexp.weight", mw.SharedGateInp, c.Dim)
			matrix(p+"ffn_gate_shexp.weight", mw.SharedGate, e.SharedFFN, c.Dim, spec.Matrix, 1)
			matrix(p+"ffn_up_shexp.weight", mw.SharedUp, e.SharedFFN, c.Dim, spec.Matrix, 1)
			matrix(p+"ffn_down_shexp.weight", mw.SharedDown, c.Dim, e.SharedFFN, spec.Matrix, 1)
		}
	}
	vector("output_norm.weight", w.OutNorm, c.Dim)
	if !c.TiedEmbeddings {
		matrix("output.weight", w.Output, c.Vocab, c.Dim, spec.Output, scale)
	}
	return out, failed
}

// randomBlocks fills data with random blocks of type dt whose scales are
// small finite numbers, so the model's arithmetic stays finite.
func randomBlocks(g *rand.Rand, dt unit01.DType, data []byte) {
	for i := 0; i+8 <= len(data); i += 8 {
		binary.LittleEndian.PutUint64(data[i:], g.Uint64())
	}
	scale := func(at int) {
		binary.LittleEndian.PutUint16(data[at:], unit01.F32ToF16(float32(0.002+0.01*g.Float64())))
	}
	bb := dt.BlockBytes()
	for o := 0; o+bb <= len(data); o += bb {
		switch dt {
		case unit01.F32:
			binary.LittleEndian.PutUint32(data[o:], math.Float32bits(float32(0.05*g.NormFloat64())))
		case unit01.F16:
			binary.LittleEndian.PutUint16(data[o:], unit01.F32ToF16(float32(0.05*g.NormFloat64())))
		case unit01.BF16:
			binary.LittleEndian.PutUint16(data[o:], unit01.F32ToBF16(float32(0.05*g.NormFloat64())))
		case unit01.Q8_0, unit01.Q4_0, unit01.Q5_0:
			scale(o)
		case unit01.Q4_1, unit01.Q4_K, unit01.Q5_K:
			scale(o)
			scale(o + 2)
		case unit01.Q6_K:
			scale(o + 208)
		}
	}
}

// Llama3RopeFactors returns the rope_freqs a Llama 3.1 or 3.2 converter
// writes for a head of headDim: the frequency factor of each pair under
// Llama 3's RoPE scaling (factor, low_freq_factor, high_freq_factor and
// original_max_position_embeddings of the model's rope_scaling). A pair
// whose wavelength 2π/θᵢ is shorter than origContext/highFreq keeps its
// frequency (1), one longer than origContext/lowFreq turns factor times
// more slowly (factor), and those between are interpolated smoothly.
func Llama3RopeFactors(headDim int, base, factor, lowFreq, highFreq float64, origContext int) []float32 {
	ctx := float64(origContext)
	out := make([]float32, headDim/2)
	for i := range out {
		theta := math.Pow(base, -2*float64(i)/float64(headDim))
		wavelen := 2 * math.Pi / theta
		switch {
		case wavelen < ctx/highFreq:
			out[i] = 1
		case wavelen > ctx/lowFreq:
			out[i] = float32(factor)
		default:
			smooth := (ctx/wavelen - lowFreq) / (highFreq - lowFreq)
			out[i] = float32(1 / ((1-smooth)/factor + smooth))
		}
	}
	return out
}
