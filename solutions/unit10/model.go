package unit10

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit09"
)

// LoadConfig reads a model's hyper-parameters from f's metadata, for
// general.architecture "llama" (Llama 1–3, TinyLlama, Mistral, Mixtral:
// RoPE on adjacent pairs), "qwen2" (RoPE on halves, q/k/v biases) or
// "qwen2moe" (Qwen2's attention with experts; LoadExperts reads those).
// Optional keys take llama.cpp's defaults: head_count_kv = head_count, rope.freq_base =
// 10000. Vocab is token_embd's row count; TiedEmbeddings is set when the
// file has no output.weight, QKVBias when it has blk.0.attn_q.bias.
// MaxSeq is maxSeq, or the file's context_length when maxSeq ≤ 0. A
// missing key or tensor is an error wrapping unit00.ErrInvalid that names
// it; so is a value that cannot describe a model (a count of 0, a
// head_count that does not divide embedding_length, a head_count_kv that
// does not divide head_count, a block_count other than the file's blocks),
// named with its key and value. Another architecture, or a
// rope.dimension_count other than the head width (partial rotary), wraps
// unit00.ErrUnsupported.
// RopeFactors are llama.cpp's: a rope_freqs.weight tensor (Llama 3.1 and
// 3.2: HeadDim/2 positive factors) times a linear scaling factor
// (rope.scale_linear or rope.scaling.factor; 0 or 1 is none, and
// rope.scaling.type "none" turns it off), nil when there are neither.
// rope.scaling.type "yarn" makes Yarn instead, as llama.cpp does for
// these architectures: Factor the scaling factor (0 or absent: 1),
// OrigCtx rope.scaling.original_context_length (0 or absent: the file's
// context_length, whatever maxSeq is), AttnFactor rope.scaling.attn_factor
// (absent: 1), and ggml's BetaFast 32 and BetaSlow 1 (llama.cpp reads no
// rope.scaling.yarn_* key for llama, qwen2 or qwen2moe, and neither does
// this loader); the factor is then not a RopeFactor. A YaRN factor below
// 1, and an attn_factor or original_context_length that is not a
// positive, finite number of its type, wrap ErrInvalid naming the key; an
// attn_factor other than 1 without YaRN, and a rope.scaling.type other
// than none, linear and yarn, wrap ErrUnsupported.
func LoadConfig(f *File, maxSeq int) (unit05.Config, error) {
	var c unit05.Config
	arch, err := f.String("general.architecture")
	if err != nil {
		return c, err
	}
	switch arch {
	case "llama":
		c.Rope = unit05.RopeNorm
	case "qwen2", "qwen2moe":
		c.Rope = unit05.RopeNeox
	default:
		return c, fmt.Errorf("%s: general.architecture %q (this loader knows llama, qwen2 and qwen2moe): %w", f.source, arch, unit00.ErrUnsupported)
	}
	kvHeadsSet := false
	ints := []struct {
		key      string
		dst      *int
		optional bool
	}{
		{arch + ".embedding_length", &c.Dim, false},
		{arch + ".block_count", &c.Layers, false},
		{arch + ".attention.head_count", &c.Heads, false},
		{arch + ".attention.head_count_kv", &c.KVHeads, true},
		{arch + ".feed_forward_length", &c.FFN, false},
		{arch + ".context_length", &c.MaxSeq, false},
	}
	for _, k := range ints {
		v, err := f.Uint(k.key)
		switch {
		case err != nil && k.optional:
			continue
		case err != nil:
			return c, err
		case v > math.MaxInt32:
			return c, fmt.Errorf("%s: %s = %d is beyond any model: %w", f.source, k.key, v, unit00.ErrInvalid)
		}
		*k.dst = int(v)
		kvHeadsSet = kvHeadsSet || k.dst == &c.KVHeads
	}
	if !kvHeadsSet {
		c.KVHeads = c.Heads
	}
	if err := checkShape(f, arch, c); err != nil {
		return c, err
	}
	c.HeadDim = c.Dim / c.Heads
	if err := checkRope(f, arch, c.HeadDim); err != nil {
		return c, err
	}
	eps, err := f.Float(arch + ".attention.layer_norm_rms_epsilon")
	if err != nil {
		return c, err
	}
	c.RMSEps = float32(eps)
	c.RopeBase = 10000
	if base, err := f.Float(arch + ".rope.freq_base"); err == nil {
		c.RopeBase = base
	}
	for _, x := range []struct {
		key string
		v   float64
	}{{arch + ".attention.layer_norm_rms_epsilon", float64(c.RMSEps)}, {arch + ".rope.freq_base", c.RopeBase}} {
		if !(x.v > 0) || math.IsInf(x.v, 0) {
			return c, f.errorf(unit00.ErrInvalid, "%s = %v: want a positive, finite number", x.key, x.v)
		}
	}
	if c.RopeFactors, c.Yarn, err = ropeFactors(f, arch, c.HeadDim, c.MaxSeq); err != nil {
		return c, err
	}
	embd, _, err := f.Tensor("token_embd.weight")
	if err != nil {
		return c, err
	}
	if len(embd.Dims) != 2 {
		return c, fmt.Errorf("%s: token_embd.weight has %d dimensions, want 2: %w", f.source, len(embd.Dims), unit00.ErrInvalid)
	}
	c.Vocab = int(embd.Dims[1])
	_, _, err = f.Tensor("output.weight")
	c.TiedEmbeddings = err != nil
	_, _, err = f.Tensor("blk.0.attn_q.bias")
	c.QKVBias = err == nil
	if maxSeq > 0 {
		c.MaxSeq = maxSeq
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("%s: %w", f.source, err)
	}
	return c, nil
}

// checkShape checks the integer hyper-parameters, in the order of the
// keys, each against the ones before it. Every error names the key and its
// value: Validate would catch most of these too, but with the name of a
// Config field, which does not tell a user which key of the file is wrong.
func checkShape(f *File, arch string, c unit05.Config) error {
	key := func(k string) string { return arch + "." + k }
	embd, blocks := key("embedding_length"), key("block_count")
	heads, kvHeads := key("attention.head_count"), key("attention.head_count_kv")
	bad := func(format string, args ...any) error { return f.errorf(unit00.ErrInvalid, format, args...) }
	switch {
	case c.Dim == 0:
		return bad("%s = 0: the embedding needs at least one dimension", embd)
	case c.Layers == 0:
		return bad("%s = 0: a model has at least one block", blocks)
	case c.Heads == 0:
		return bad("%s = 0: a model has at least one attention head", heads)
	case c.Dim%c.Heads != 0:
		return bad("%s = %d does not divide %s = %d: every head takes an equal share of the embedding", heads, c.Heads, embd, c.Dim)
	case c.KVHeads == 0:
		return bad("%s = 0: a model has at least one key/value head", kvHeads)
	case c.Heads%c.KVHeads != 0:
		return bad("%s = %d does not divide %s = %d: every key/value head serves an equal group of query heads", kvHeads, c.KVHeads, heads, c.Heads)
	case c.FFN == 0:
		return bad("%s = 0: the feed-forward layer needs at least one unit", key("feed_forward_length"))
	case c.MaxSeq == 0:
		return bad("%s = 0: a model has a context of at least one position", key("context_length"))
	}
	switch n := fileBlocks(f); {
	case n == 0:
		return bad("%s = %d, but the file has no block tensors (blk.N.*)", blocks, c.Layers)
	case n != c.Layers:
		return bad("%s = %d, but the file's tensors make %d blocks (blk.0 … blk.%d)", blocks, c.Layers, n, n-1)
	}
	return nil
}

// checkRope checks the rotary dimension, if the file gives one, against
// the head width. A smaller one is partial rotary (Phi-2), another model.
func checkRope(f *File, arch string, headDim int) error {
	key := arch + ".rope.dimension_count"
	rot, err := f.Uint(key)
	switch {
	case err != nil:
		if _, present := f.Lookup(key); present {
			return err
		}
	case rot == 0 || rot > uint64(headDim):
		return f.errorf(unit00.ErrInvalid, "%s = %d, but the head width is %d (embedding_length / head_count)", key, rot, headDim)
	case int(rot) != headDim:
		return f.errorf(unit00.ErrUnsupported, "%s = %d is not the head width %d (partial rotary)", key, rot, headDim)
	}
	if headDim%2 != 0 {
		return f.errorf(unit00.ErrInvalid, "the head width %d (%s.embedding_length / %s.attention.head_count) is odd: RoPE rotates pairs", headDim, arch, arch)
	}
	return nil
}

// ropeFactors returns the frequency factors RoPE divides each pair's angle
// by, nil for none, and YaRN's description, nil for none. Two things in a
// file ask for factors, as llama.cpp reads it: a rope_freqs.weight tensor
// of headDim/2 positive values in F32 (Llama 3.1 and 3.2; ggml's RoPE
// takes its factors in F32 only), and linear scaling, whose factor
// (rope.scale_linear, or rope.scaling.factor; 0 means none) divides every
// pair's angle; both multiply. rope.scaling.type "none" turns the linear
// factor off, and "yarn" makes it YaRN's factor instead (see yarn);
// longrope and the other types are not this engine's (ErrUnsupported).
// ctxTrain is the file's context_length.
func ropeFactors(f *File, arch string, headDim, ctxTrain int) ([]float32, *unit05.Yarn, error) {
	half := headDim / 2
	var factors []float32
	if info, data, err := f.Tensor("rope_freqs.weight"); err == nil {
		if len(info.Dims) != 1 || info.Dims[0] != uint64(half) || info.Type != unit01.F32 {
			return nil, nil, f.errorf(unit00.ErrInvalid, "tensor rope_freqs.weight is %v of dims %v: want F32 of {%d} (one factor per pair of a head of %d)", info.Type, info.Dims, half, headDim)
		}
		factors = make([]float32, half)
		if err := unit09.DequantizeRow(info.Type, factors, data); err != nil {
			return nil, nil, f.errorf(unit00.ErrInvalid, "tensor rope_freqs.weight: %v", err)
		}
		for i, x := range factors {
			if !(x > 0) || math.IsInf(float64(x), 0) {
				return nil, nil, f.errorf(unit00.ErrInvalid, "tensor rope_freqs.weight: factor %d is %v, want a positive, finite number", i, x)
			}
		}
	}
	scale, key := 0.0, ""
	for _, k := range []string{arch + ".rope.scale_linear", arch + ".rope.scaling.factor"} {
		if _, present := f.Lookup(k); !present {
			continue
		}
		v, err := f.Float(k)
		if err != nil {
			return nil, nil, err
		}
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, nil, f.errorf(unit00.ErrInvalid, "%s = %v: want a non-negative, finite number (0: no scaling)", k, v)
		}
		if v != 0 {
			scale, key = v, k
			break
		}
	}
	// rope.scaling.attn_factor multiplies the rotations' magnitude, for
	// every scaling type in llama.cpp; here it is part of YaRN.
	attn, attnKey := 1.0, arch+".rope.scaling.attn_factor"
	if _, present := f.Lookup(attnKey); present {
		v, err := f.Float(attnKey)
		if err != nil {
			return nil, nil, err
		}
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, nil, f.errorf(unit00.ErrInvalid, "%s = %v: want a positive, finite number", attnKey, v)
		}
		attn = v
	}
	typeKey, typ := arch+".rope.scaling.type", "linear" // llama.cpp's default
	if t, err := f.String(typeKey); err == nil {
		typ = t
	} else if _, present := f.Lookup(typeKey); present {
		return nil, nil, err
	}
	switch typ {
	case "yarn":
		y, err := yarn(f, arch, scale, key, attn, ctxTrain)
		return factors, y, err
	case "none":
		scale = 0
	case "linear":
	default:
		return nil, nil, f.errorf(unit00.ErrUnsupported, "%s = %q: this engine applies linear and YaRN RoPE scaling and Llama 3's rope_freqs, not %s", typeKey, typ, typ)
	}
	if attn != 1 {
		return nil, nil, f.errorf(unit00.ErrUnsupported, "%s = %v with %s %q: this engine applies an attention factor only with YaRN", attnKey, attn, typeKey, typ)
	}
	if scale == 0 || scale == 1 {
		return factors, nil, nil
	}
	if factors == nil {
		factors = make([]float32, half)
		for i := range factors {
			factors[i] = 1
		}
	}
	for i := range factors {
		factors[i] *= float32(scale)
		if math.IsInf(float64(factors[i]), 0) || factors[i] == 0 {
			return nil, nil, f.errorf(unit00.ErrInvalid, "%s = %v times rope_freqs.weight's factor %d is %v, outside float32's positive numbers", key, scale, i, factors[i])
		}
	}
	return factors, nil, nil
}

// yarn returns the YaRN of a file whose rope.scaling.type is "yarn", as
// llama.cpp builds it: scale (read from key) is the factor, 0 meaning 1;
// the original context is rope.scaling.original_context_length, where 0
// or no key means the context_length ctxTrain; the betas are ggml's
// defaults, 32 and 1 (llama.cpp reads no yarn_beta key for these
// architectures).
func yarn(f *File, arch string, scale float64, key string, attn float64, ctxTrain int) (*unit05.Yarn, error) {
	if scale == 0 {
		scale = 1
	}
	if scale < 1 {
		return nil, f.errorf(unit00.ErrInvalid, "%s = %v with rope.scaling.type \"yarn\": want at least 1 (YaRN lengthens the context; 0: none)", key, scale)
	}
	orig, origKey := ctxTrain, arch+".rope.scaling.original_context_length"
	if _, present := f.Lookup(origKey); present {
		v, err := f.Uint(origKey)
		if err != nil {
			return nil, err
		}
		if v > math.MaxInt32 {
			return nil, f.errorf(unit00.ErrInvalid, "%s = %d is beyond any model", origKey, v)
		}
		if v != 0 {
			orig = int(v)
		}
	}
	y := unit05.NewYarn(scale, orig)
	y.AttnFactor = attn
	return y, nil
}

// fileBlocks is the number of transformer blocks the file's tensors make:
// one more than the highest N of a tensor named blk.N.something.
func fileBlocks(f *File) int {
	n := 0
	for _, t := range f.Tensors {
		rest, ok := strings.CutPrefix(t.Name, "blk.")
		if !ok {
			continue
		}
		num, _, ok := strings.Cut(rest, ".")
		if i, err := strconv.Atoi(num); ok && err == nil && i >= n {
			n = i + 1
		}
	}
	return n
}

// LoadWeights binds f's tensors to a model of config c, by their GGUF
// names. Quantized, F16 and BF16 matrices become unit09.QMatrix views of
// the file's bytes (nothing copied); F32 matrices are copied into
// unit05.Dense matrices for the float32 GEMM; norms and biases are copied
// (they are small). A missing tensor, or one whose dimensions are not the
// [in, out] (ne[0] first) that c implies, is an error naming it; of
// several, the first in the order of the tensor table. A mixture-of-experts
// file's layers (LoadExperts) get their feed-forward from LoadMoE instead of
// ffn_gate, ffn_up and ffn_down.
func LoadWeights(f *File, c unit05.Config) (*unit05.Weights, error) {
	b := binder{f: f}
	w := &unit05.Weights{
		Embed:   b.matrix("token_embd.weight", c.Vocab, c.Dim),
		OutNorm: b.vector("output_norm.weight", c.Dim),
	}
	w.Output = w.Embed
	if !c.TiedEmbeddings {
		w.Output = b.matrix("output.weight", c.Vocab, c.Dim)
	}
	if b.err != nil {
		return nil, b.err // the embedding and output come first in the table
	}
	e, err := LoadExperts(f, c)
	if err != nil {
		return nil, err
	}
	q, kv := c.QDim(), c.KVDim()
	for i := range c.Layers {
		p := fmt.Sprintf("blk.%d.", i)
		l := unit05.Layer{
			AttnNorm: b.vector(p+"attn_norm.weight", c.Dim),
			Wq:       b.matrix(p+"attn_q.weight", q, c.Dim),
			Wk:       b.matrix(p+"attn_k.weight", kv, c.Dim),
			Wv:       b.matrix(p+"attn_v.weight", kv, c.Dim),
			Wo:       b.matrix(p+"attn_output.weight", c.Dim, q),
			FFNNorm:  b.vector(p+"ffn_norm.weight", c.Dim),
		}
		if c.QKVBias {
			l.Bq, l.Bk, l.Bv = b.vector(p+"attn_q.bias", q), b.vector(p+"attn_k.bias", kv), b.vector(p+"attn_v.bias", kv)
		}
		if e.Experts == 0 {
			l.Gate = b.matrix(p+"ffn_gate.weight", c.FFN, c.Dim)
			l.Up = b.matrix(p+"ffn_up.weight", c.FFN, c.Dim)
			l.Down = b.matrix(p+"ffn_down.weight", c.Dim, c.FFN)
		} else if b.err == nil {
			l.MoE, b.err = LoadMoE(f, i, c, e)
		}
		if b.err != nil {
			return nil, b.err // at once: a Layers of 10⁹ must not run on
		}
		w.Layers = append(w.Layers, l)
	}
	if err := w.Check(c); err != nil {
		return nil, fmt.Errorf("%s: %w", f.source, err)
	}
	return w, nil
}

// binder looks tensors up and keeps the first error, so LoadWeights reads
// as a list of names.
type binder struct {
	f   *File
	err error
}

// tensor returns the named tensor if its dims are want (ne[0] first).
func (b *binder) tensor(name string, want ...uint64) (TensorInfo, []byte, bool) {
	if b.err != nil {
		return TensorInfo{}, nil, false
	}
	info, data, err := b.f.Tensor(name)
	if err != nil {
		b.err = err
		return info, nil, false
	}
	ok := len(info.Dims) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = info.Dims[i] == want[i]
	}
	if !ok {
		b.err = fmt.Errorf("%s: tensor %s has dims %v, want %v (ne[0] first): %w", b.f.source, name, info.Dims, want, unit00.ErrInvalid)
	}
	return info, data, ok
}

// matrix binds an out×in weight matrix, stored with dims {in, out}.
func (b *binder) matrix(name string, out, in int) unit05.Matrix {
	info, data, ok := b.tensor(name, uint64(in), uint64(out))
	if !ok {
		return nil
	}
	return b.bind(name, info.Type, out, in, data)
}

// experts binds n stacked out×in matrices, stored as one tensor with dims
// {in, out, n}: each a view of its own slice of the tensor's bytes.
func (b *binder) experts(name string, out, in, n int) []unit05.Matrix {
	info, data, ok := b.tensor(name, uint64(in), uint64(out), uint64(n))
	if !ok {
		return nil
	}
	size := len(data) / n // Parse checked the tensor's size: n equal slices
	ms := make([]unit05.Matrix, n)
	for e := range ms {
		if ms[e] = b.bind(fmt.Sprintf("%s (expert %d)", name, e), info.Type, out, in, data[e*size:(e+1)*size]); ms[e] == nil {
			return nil
		}
	}
	return ms
}

// bind makes a matrix of data: a copy for F32, a view otherwise.
func (b *binder) bind(name string, dt unit01.DType, out, in int, data []byte) unit05.Matrix {
	if dt == unit01.F32 {
		m := unit03.NewMat(out, in)
		if err := unit09.DequantizeRow(unit01.F32, m.Data, data); err != nil {
			b.err = fmt.Errorf("%s: tensor %s: %w", b.f.source, name, err)
			return nil
		}
		return unit05.NewDense(m)
	}
	m, err := unit09.NewQMatrix(dt, out, in, data)
	if err != nil {
		b.err = fmt.Errorf("%s: tensor %s: %w", b.f.source, name, err)
		return nil
	}
	return m
}

// vector binds a norm's or bias's n values (F32, F16 or BF16), copied.
func (b *binder) vector(name string, n int) []float32 {
	info, data, ok := b.tensor(name, uint64(n))
	if !ok {
		return nil
	}
	v := make([]float32, n)
	if info.Type.Quantized() {
		b.err = fmt.Errorf("%s: tensor %s is %v; norms and biases must be F32, F16 or BF16: %w", b.f.source, name, info.Type, unit00.ErrUnsupported)
		return nil
	}
	if err := unit09.DequantizeRow(info.Type, v, data); err != nil {
		b.err = fmt.Errorf("%s: tensor %s: %w", b.f.source, name, err)
		return nil
	}
	return v
}
