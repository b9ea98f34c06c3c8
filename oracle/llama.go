package oracle

import (
	"fmt"
	"math"
)

// A float64 reference forward pass of a Llama-family decoder, written to be
// read top to bottom: plain loops, every angle computed from scratch, no
// caches. It follows llama.cpp's graph (src/models/llama.cpp): pre-norm
// residual blocks of causal grouped-query attention with RoPE and a SwiGLU
// feed-forward, then a final RMSNorm and the output projection.

// LlamaConfig holds a Llama-family model's hyper-parameters.
type LlamaConfig struct {
	Dim, Layers, Heads, KVHeads, HeadDim, FFN, Vocab int

	RopeBase float64 // θ base, e.g. 10000
	RMSEps   float64 // the ε of every RMSNorm
	// NeoX selects RoPE pairs (i, i+HeadDim/2) (Qwen2, "NEOX"); false:
	// adjacent pairs (2i, 2i+1) (GGUF llama, "NORM").
	NeoX bool
	// RopeFactors, when not nil, divides pair i's angle by RopeFactors[i]
	// (HeadDim/2 of them): Llama 3's frequency factors, GGUF's rope_freqs.
	RopeFactors []float64
	// Yarn, when not nil, is YaRN's context extension (see RopeYarn).
	Yarn *Yarn
}

// LlamaLayer holds one block's weights, row-major [out, in] as GGUF stores
// them: output row o of a projection W is W[o·in : (o+1)·in].
type LlamaLayer struct {
	AttnNorm   []float64 // Dim
	Wq         []float64 // (Heads·HeadDim) × Dim
	Wk, Wv     []float64 // (KVHeads·HeadDim) × Dim
	Bq, Bk, Bv []float64 // biases of the q, k, v projections (Qwen2), nil when absent
	Wo         []float64 // Dim × (Heads·HeadDim)
	FFNNorm    []float64 // Dim
	Wgate, Wup []float64 // FFN × Dim
	Wdown      []float64 // Dim × FFN
	// MoE, when not nil, replaces the SwiGLU feed-forward (Wgate, Wup and
	// Wdown are then nil): a mixture-of-experts layer.
	MoE *MoELayer
}

// LlamaWeights holds a whole model's weights.
type LlamaWeights struct {
	Embed   []float64 // Vocab × Dim
	Layers  []LlamaLayer
	OutNorm []float64 // Dim
	Output  []float64 // Vocab × Dim; nil means tied: the output projection is Embed
}

// Rope rotates one head vector x (len HeadDim, even) in place for position
// pos: pair (a, b) with angle θ_i = pos · base^(−2i/HeadDim), i in
// [0, HeadDim/2), becomes a' = a·cos θ_i − b·sin θ_i, b' = a·sin θ_i + b·cos θ_i.
// Pairs are (x[2i], x[2i+1]) when !neox ("NORM", GGUF llama) and
// (x[i], x[i+HeadDim/2]) when neox ("NEOX", Qwen2 and HF rotate_half).
func Rope(x []float64, pos int, base float64, neox bool) {
	RopeFactors(x, pos, base, neox, nil)
}

// RopeFactors is Rope with pair i's angle divided by factors[i]: θ_i =
// pos · base^(−2i/HeadDim) / factors[i], as llama.cpp applies a Llama 3
// model's rope_freqs tensor. factors nil is Rope; otherwise it must hold
// HeadDim/2 values.
func RopeFactors(x []float64, pos int, base float64, neox bool, factors []float64) {
	hd := len(x)
	if hd%2 != 0 {
		panic(fmt.Sprintf("oracle.Rope: head dimension %d is odd", hd))
	}
	if factors != nil && len(factors) != hd/2 {
		panic(fmt.Sprintf("oracle.RopeFactors: %d factors for a head of %d (want %d)", len(factors), hd, hd/2))
	}
	for i := 0; i < hd/2; i++ {
		theta := float64(pos) * math.Pow(base, -2*float64(i)/float64(hd))
		if factors != nil {
			theta /= factors[i]
		}
		cos, sin := math.Cos(theta), math.Sin(theta)
		ia, ib := 2*i, 2*i+1
		if neox {
			ia, ib = i, i+hd/2
		}
		a, b := x[ia], x[ib]
		x[ia] = a*cos - b*sin
		x[ib] = a*sin + b*cos
	}
}

// Yarn is YaRN's RoPE scaling (Peng et al., 2023) as ggml's rope applies
// it with ext_factor 1, the value llama.cpp gives a file of rope.scaling.type
// "yarn": Factor s (≥ 1) stretches the context OrigCtx the model was
// trained on; BetaFast and BetaSlow (ggml's defaults 32 and 1) are the
// numbers of turns over OrigCtx that bound the ramp between extrapolated
// and interpolated pairs; AttnFactor multiplies the magnitude.
type Yarn struct {
	Factor             float64
	OrigCtx            int
	BetaFast, BetaSlow float64
	AttnFactor         float64
}

// YarnCorrDims returns the pair indices [low, high] between which YaRN's
// ramp runs, as ggml_rope_yarn_corr_dims computes them: the pair that
// turns β times over origCtx positions is d·ln(origCtx/(2πβ)) / (2·ln base)
// (solve origCtx·base^(−2i/d) = 2πβ for i); low is that for betaFast
// rounded down and at least 0, high that for betaSlow rounded up and at
// most d−1.
func YarnCorrDims(headDim, origCtx int, base, betaFast, betaSlow float64) (low, high float64) {
	dim := func(beta float64) float64 {
		return float64(headDim) * math.Log(float64(origCtx)/(2*math.Pi*beta)) / (2 * math.Log(base))
	}
	return math.Max(0, math.Floor(dim(betaFast))), math.Min(float64(headDim-1), math.Ceil(dim(betaSlow)))
}

// RopeYarn is RopeFactors with YaRN: pair i's angle θ (RopeFactors') and
// its interpolation θ/s are mixed by the ramp r_i = 1 − clamp((i − low) /
// max(0.001, high − low), 0, 1) of YarnCorrDims, as θ/s·(1 − r_i) + θ·r_i
// (fast pairs keep their angle, slow pairs are interpolated), and both cos
// and sin are multiplied by AttnFactor·(1 + 0.1·ln s), YaRN's attention
// temperature. y nil is RopeFactors.
func RopeYarn(x []float64, pos int, base float64, neox bool, factors []float64, y *Yarn) {
	if y == nil {
		RopeFactors(x, pos, base, neox, factors)
		return
	}
	hd := len(x)
	if hd%2 != 0 {
		panic(fmt.Sprintf("oracle.RopeYarn: head dimension %d is odd", hd))
	}
	if factors != nil && len(factors) != hd/2 {
		panic(fmt.Sprintf("oracle.RopeYarn: %d factors for a head of %d (want %d)", len(factors), hd, hd/2))
	}
	if !(y.Factor >= 1) || y.OrigCtx <= 0 {
		panic(fmt.Sprintf("oracle.RopeYarn: factor %v (want ≥ 1) or original context %d (want > 0)", y.Factor, y.OrigCtx))
	}
	low, high := YarnCorrDims(hd, y.OrigCtx, base, y.BetaFast, y.BetaSlow)
	mscale := y.AttnFactor * (1 + 0.1*math.Log(y.Factor))
	for i := 0; i < hd/2; i++ {
		extrap := float64(pos) * math.Pow(base, -2*float64(i)/float64(hd))
		if factors != nil {
			extrap /= factors[i]
		}
		interp := extrap / y.Factor
		ramp := 1 - math.Min(1, math.Max(0, (float64(i)-low)/math.Max(0.001, high-low)))
		theta := interp*(1-ramp) + extrap*ramp
		cos, sin := mscale*math.Cos(theta), mscale*math.Sin(theta)
		ia, ib := 2*i, 2*i+1
		if neox {
			ia, ib = i, i+hd/2
		}
		a, b := x[ia], x[ib]
		x[ia] = a*cos - b*sin
		x[ib] = a*sin + b*cos
	}
}

// Attention returns causal grouped-query attention for T query rows at
// positions pos0..pos0+T−1. q is T × (heads·hd) row-major; k and v are
// (pos0+T) × (kvHeads·hd) row-major and hold positions 0..pos0+T−1. Query
// head h uses kv head h / (heads/kvHeads), so each kv head serves a run of
// consecutive query heads. Query row t attends to positions 0..pos0+t
// inclusive with scores q·k / sqrt(hd). The result is T × (heads·hd).
func Attention(q, k, v []float64, T, pos0, heads, kvHeads, hd int) []float64 {
	if kvHeads <= 0 || heads%kvHeads != 0 {
		panic(fmt.Sprintf("oracle.Attention: %d query heads are not a multiple of %d kv heads", heads, kvHeads))
	}
	n := pos0 + T // positions held in k and v
	mustLen("Attention q", q, T*heads*hd)
	mustLen("Attention k", k, n*kvHeads*hd)
	mustLen("Attention v", v, n*kvHeads*hd)
	group := heads / kvHeads
	scale := 1 / math.Sqrt(float64(hd))
	out := make([]float64, T*heads*hd)
	for t := 0; t < T; t++ {
		last := pos0 + t // the last position row t may see
		for h := 0; h < heads; h++ {
			kvh := h / group
			qh := q[(t*heads+h)*hd : (t*heads+h+1)*hd]
			scores := make([]float64, last+1)
			for s := 0; s <= last; s++ {
				ks := k[(s*kvHeads+kvh)*hd : (s*kvHeads+kvh+1)*hd]
				scores[s] = dot(qh, ks) * scale
			}
			p := Softmax(scores, 1, nil)
			oh := out[(t*heads+h)*hd : (t*heads+h+1)*hd]
			for s := 0; s <= last; s++ {
				vs := v[(s*kvHeads+kvh)*hd : (s*kvHeads+kvh+1)*hd]
				for i := range oh {
					oh[i] += p[s] * vs[i]
				}
			}
		}
	}
	return out
}

// LlamaForward returns the logits, T rows of Vocab, for tokens at positions
// 0..T−1 (row t is the prediction after token t). It panics on a token out
// of range or a weight of the wrong length.
func LlamaForward(c LlamaConfig, w *LlamaWeights, tokens []int) [][]float64 {
	checkLlama(c, w)
	T := len(tokens)
	qDim, kvDim := c.Heads*c.HeadDim, c.KVHeads*c.HeadDim

	// h: the residual stream, one row of Dim per position.
	h := make([][]float64, T)
	for t, tok := range tokens {
		if tok < 0 || tok >= c.Vocab {
			panic(fmt.Sprintf("oracle.LlamaForward: token %d at position %d is outside [0, %d)", tok, t, c.Vocab))
		}
		h[t] = append([]float64(nil), w.Embed[tok*c.Dim:(tok+1)*c.Dim]...)
	}

	for _, l := range w.Layers {
		// Attention sub-block: project every position, rotate q and k,
		// attend, and add the output projection to the residual.
		q := make([]float64, 0, T*qDim)
		k := make([]float64, 0, T*kvDim)
		v := make([]float64, 0, T*kvDim)
		for t := range h {
			x := RMSNorm(h[t], l.AttnNorm, c.RMSEps)
			qt := linear(l.Wq, l.Bq, x, qDim)
			kt := linear(l.Wk, l.Bk, x, kvDim)
			vt := linear(l.Wv, l.Bv, x, kvDim)
			for hh := 0; hh < c.Heads; hh++ {
				RopeYarn(qt[hh*c.HeadDim:(hh+1)*c.HeadDim], t, c.RopeBase, c.NeoX, c.RopeFactors, c.Yarn)
			}
			for hh := 0; hh < c.KVHeads; hh++ {
				RopeYarn(kt[hh*c.HeadDim:(hh+1)*c.HeadDim], t, c.RopeBase, c.NeoX, c.RopeFactors, c.Yarn)
			}
			q = append(q, qt...)
			k = append(k, kt...)
			v = append(v, vt...)
		}
		a := Attention(q, k, v, T, 0, c.Heads, c.KVHeads, c.HeadDim)
		for t := range h {
			addTo(h[t], linear(l.Wo, nil, a[t*qDim:(t+1)*qDim], c.Dim))
		}

		// Feed-forward sub-block: SwiGLU, added to the residual.
		for t := range h {
			x := RMSNorm(h[t], l.FFNNorm, c.RMSEps)
			if l.MoE != nil {
				addTo(h[t], MoE(l.MoE, x))
				continue
			}
			gate := linear(l.Wgate, nil, x, c.FFN)
			up := linear(l.Wup, nil, x, c.FFN)
			act := make([]float64, c.FFN)
			for i := range act {
				act[i] = SiLU(gate[i]) * up[i]
			}
			addTo(h[t], linear(l.Wdown, nil, act, c.Dim))
		}
	}

	out := w.Output
	if out == nil {
		out = w.Embed
	}
	logits := make([][]float64, T)
	for t := range h {
		logits[t] = linear(out, nil, RMSNorm(h[t], w.OutNorm, c.RMSEps), c.Vocab)
	}
	return logits
}

// linear returns W·x (+ b when b is not nil) for W row-major rows × len(x):
// y[o] = Σ_i W[o·len(x)+i]·x[i] + b[o].
func linear(W, b, x []float64, rows int) []float64 {
	in := len(x)
	y := make([]float64, rows)
	for o := range y {
		y[o] = dot(W[o*in:(o+1)*in], x)
		if b != nil {
			y[o] += b[o]
		}
	}
	return y
}

// dot returns Σ a[i]·b[i] for equal-length a and b.
func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// addTo adds d to h element-wise, in place.
func addTo(h, d []float64) {
	for i := range h {
		h[i] += d[i]
	}
}

// mustLen panics unless x has length n.
func mustLen(what string, x []float64, n int) {
	if len(x) != n {
		panic(fmt.Sprintf("oracle: %s has length %d, want %d", what, len(x), n))
	}
}

// mustLenOrNil panics unless x is nil or has length n.
func mustLenOrNil(what string, x []float64, n int) {
	if x != nil {
		mustLen(what, x, n)
	}
}

// checkLlama panics unless c is consistent and every weight in w has the
// length c implies, so that a wrong shape fails loudly instead of reading
// the wrong elements.
func checkLlama(c LlamaConfig, w *LlamaWeights) {
	if c.Dim <= 0 || c.Heads <= 0 || c.KVHeads <= 0 || c.HeadDim <= 0 || c.FFN <= 0 || c.Vocab <= 0 {
		panic(fmt.Sprintf("oracle.LlamaForward: every size in %+v must be positive", c))
	}
	if c.Heads%c.KVHeads != 0 || c.HeadDim%2 != 0 {
		panic(fmt.Sprintf("oracle.LlamaForward: need Heads a multiple of KVHeads and HeadDim even, got %+v", c))
	}
	if len(w.Layers) != c.Layers {
		panic(fmt.Sprintf("oracle.LlamaForward: %d layers of weights for a config of %d", len(w.Layers), c.Layers))
	}
	qDim, kvDim := c.Heads*c.HeadDim, c.KVHeads*c.HeadDim
	mustLen("Embed", w.Embed, c.Vocab*c.Dim)
	mustLen("OutNorm", w.OutNorm, c.Dim)
	mustLenOrNil("Output", w.Output, c.Vocab*c.Dim)
	for i, l := range w.Layers {
		name := func(s string) string { return fmt.Sprintf("layer %d %s", i, s) }
		mustLen(name("AttnNorm"), l.AttnNorm, c.Dim)
		mustLen(name("Wq"), l.Wq, qDim*c.Dim)
		mustLen(name("Wk"), l.Wk, kvDim*c.Dim)
		mustLen(name("Wv"), l.Wv, kvDim*c.Dim)
		mustLenOrNil(name("Bq"), l.Bq, qDim)
		mustLenOrNil(name("Bk"), l.Bk, kvDim)
		mustLenOrNil(name("Bv"), l.Bv, kvDim)
		mustLen(name("Wo"), l.Wo, c.Dim*qDim)
		mustLen(name("FFNNorm"), l.FFNNorm, c.Dim)
		if l.MoE != nil {
			checkMoE(l.MoE, c.Dim)
			continue
		}
		mustLen(name("Wgate"), l.Wgate, c.FFN*c.Dim)
		mustLen(name("Wup"), l.Wup, c.FFN*c.Dim)
		mustLen(name("Wdown"), l.Wdown, c.Dim*c.FFN)
	}
}
