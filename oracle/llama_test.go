package oracle

import (
	"fmt"
	"math"
	"testing"
)

// These tests check the Llama reference by properties that do not reuse its
// own arithmetic: hand-computed values, symmetries (causality, tying, GQA as
// repeated MHA) and the NORM/NEOX equivalence under llama.cpp's converter
// permutation, which pins both RoPE pairings against each other.

// near reports whether got is within tol of want, relative to 1 + |want|.
func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*(1+math.Abs(want))
}

// assertNear fails t at the first element of got that is not near want.
func assertNear(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: length %d, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !near(got[i], want[i], tol) {
			t.Fatalf("%s: element %d is %.17g, want %.17g", what, i, got[i], want[i])
		}
	}
}

// inner returns Σ a[i]·b[i], written here so the tests share no arithmetic
// with llama.go.
func inner(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// normal returns n samples of N(0, std²) widened to float64.
func normal(g *Rand, n int, std float64) []float64 {
	return Float64s(g.Normal(n, 0, std))
}

func TestRopeIdentityAtZero(t *testing.T) {
	g := NewRand(1)
	for _, neox := range []bool{false, true} {
		x := normal(g, 8, 1)
		y := append([]float64(nil), x...)
		Rope(y, 0, 10000, neox)
		// θ = 0 gives cos 1 and sin 0 exactly, so a·1 − b·0 is a exactly.
		for i := range x {
			if y[i] != x[i] {
				t.Fatalf("neox=%v: position 0 changed x[%d] from %g to %g", neox, i, x[i], y[i])
			}
		}
	}
}

func TestRopePreservesPairNorms(t *testing.T) {
	g := NewRand(2)
	const hd = 8
	for _, neox := range []bool{false, true} {
		for _, pos := range []int{1, 7, 1000} {
			x := normal(g, hd, 1)
			y := append([]float64(nil), x...)
			Rope(y, pos, 10000, neox)
			for i := 0; i < hd/2; i++ {
				a, b := 2*i, 2*i+1
				if neox {
					a, b = i, i+hd/2
				}
				before := x[a]*x[a] + x[b]*x[b]
				after := y[a]*y[a] + y[b]*y[b]
				if !near(after, before, 1e-14) {
					t.Errorf("neox=%v pos %d pair %d: |pair|² %g became %g", neox, pos, i, before, after)
				}
			}
		}
	}
}

func TestRopeHandComputed(t *testing.T) {
	// HeadDim 4, base 10000, pos 1: θ_0 = 1·10000^0 = 1 and
	// θ_1 = 1·10000^(−2/4) = 0.01, with
	//   cos(1) = 0.5403023058681398,    sin(1) = 0.8414709848078965,
	//   cos(0.01) = 0.9999500004166653, sin(0.01) = 0.009999833334166664.
	// x = (1, 2, 3, 4).
	// NORM pairs (x0, x1) at θ_0 and (x2, x3) at θ_1:
	//   x0' = 1·cos(1) − 2·sin(1)       = −1.1426396637476532
	//   x1' = 1·sin(1) + 2·cos(1)       =  1.922075596544176
	//   x2' = 3·cos(0.01) − 4·sin(0.01) =  2.9598506679133294
	//   x3' = 3·sin(0.01) + 4·cos(0.01) =  4.029799501669161
	// NEOX pairs (x0, x2) at θ_0 and (x1, x3) at θ_1:
	//   x0' = 1·cos(1) − 3·sin(1)       = −1.9841106485555495
	//   x2' = 1·sin(1) + 3·cos(1)       =  2.4623779024123156
	//   x1' = 2·cos(0.01) − 4·sin(0.01) =  1.959900667496664
	//   x3' = 2·sin(0.01) + 4·cos(0.01) =  4.019799668334994
	cases := []struct {
		neox bool
		want []float64
	}{
		{false, []float64{-1.1426396637476532, 1.922075596544176, 2.9598506679133294, 4.029799501669161}},
		{true, []float64{-1.9841106485555495, 1.959900667496664, 2.4623779024123156, 4.019799668334994}},
	}
	for _, c := range cases {
		x := []float64{1, 2, 3, 4}
		Rope(x, 1, 10000, c.neox)
		assertNear(t, map[bool]string{false: "NORM", true: "NEOX"}[c.neox], x, c.want, 1e-15)
	}
}

func TestRopeFactors(t *testing.T) {
	// A factor f slows its pair f times: position f·p with every factor f
	// is Rope at position p, and a factor of 1 changes nothing.
	g := NewRand(4)
	for _, neox := range []bool{false, true} {
		x := normal(g, 8, 1)
		for _, c := range []struct{ f, p int }{{1, 7}, {2, 5}, {32, 3}} {
			got := append([]float64(nil), x...)
			RopeFactors(got, c.f*c.p, 500000, neox, []float64{float64(c.f), float64(c.f), float64(c.f), float64(c.f)})
			want := append([]float64(nil), x...)
			Rope(want, c.p, 500000, neox)
			assertNear(t, fmt.Sprintf("RopeFactors(all %d) at %d vs Rope at %d", c.f, c.f*c.p, c.p), got, want, 1e-13)
		}
		// Each pair its own factor: pair i at position 4 with factor 4 is
		// pair i at position 1, the other pairs at position 4.
		got := append([]float64(nil), x...)
		RopeFactors(got, 4, 10000, neox, []float64{1, 4, 1, 1})
		at1, at4 := append([]float64(nil), x...), append([]float64(nil), x...)
		Rope(at1, 1, 10000, neox)
		Rope(at4, 4, 10000, neox)
		pair := []int{2, 3} // NORM's pair 1
		if neox {
			pair = []int{1, 5}
		}
		for i := range got {
			want := at4[i]
			if i == pair[0] || i == pair[1] {
				want = at1[i]
			}
			assertNear(t, fmt.Sprintf("RopeFactors{1, 4, 1, 1} at 4, element %d", i), got[i:i+1], []float64{want}, 1e-13)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("RopeFactors with 3 factors for a head of 8 did not panic")
		}
	}()
	RopeFactors(make([]float64, 8), 1, 10000, false, []float64{1, 1, 1})
}

func TestRopeComposes(t *testing.T) {
	// A rotation by pos a then by pos b is the rotation by a+b: this pins the
	// angle as linear in pos, which the pos-1 hand case cannot.
	g := NewRand(3)
	for _, neox := range []bool{false, true} {
		for _, ab := range [][2]int{{1, 1}, {3, 5}, {17, 100}} {
			x := normal(g, 6, 1)
			twice := append([]float64(nil), x...)
			Rope(twice, ab[0], 500000, neox)
			Rope(twice, ab[1], 500000, neox)
			once := append([]float64(nil), x...)
			Rope(once, ab[0]+ab[1], 500000, neox)
			assertNear(t, "Rope(Rope(x, a), b) vs Rope(x, a+b)", twice, once, 1e-13)
		}
	}
}

func TestRopeNeoXIsPermutedNorm(t *testing.T) {
	// docs/unit05.md (5.2): NEOX pair (i, i+hd/2) is NORM pair (2i, 2i+1) after the
	// permutation y[2i] = x[i], y[2i+1] = x[i+hd/2]; both use angle θ_i.
	g := NewRand(4)
	for _, hd := range []int{2, 4, 8, 64} {
		for _, pos := range []int{0, 1, 5, 2047} {
			x := normal(g, hd, 1)
			y := make([]float64, hd) // x in NORM layout
			for i := 0; i < hd/2; i++ {
				y[2*i], y[2*i+1] = x[i], x[i+hd/2]
			}
			Rope(x, pos, 10000, true)
			Rope(y, pos, 10000, false)
			back := make([]float64, hd) // y permuted back to NEOX layout
			for i := 0; i < hd/2; i++ {
				back[i], back[i+hd/2] = y[2*i], y[2*i+1]
			}
			// The same products of the same numbers: exactly equal.
			for i := range x {
				if x[i] != back[i] {
					t.Fatalf("hd %d pos %d: NEOX x[%d] = %.17g, permuted NORM gives %.17g", hd, pos, i, x[i], back[i])
				}
			}
		}
	}
}

func TestAttentionOnePositionIsV(t *testing.T) {
	// With one key the softmax is exactly 1: every head returns its kv head's v.
	g := NewRand(5)
	const heads, kvHeads, hd = 4, 2, 3
	q, k, v := normal(g, heads*hd, 1), normal(g, kvHeads*hd, 1), normal(g, kvHeads*hd, 1)
	out := Attention(q, k, v, 1, 0, heads, kvHeads, hd)
	for h := 0; h < heads; h++ {
		kvh := h / (heads / kvHeads)
		assertNear(t, "head output", out[h*hd:(h+1)*hd], v[kvh*hd:(kvh+1)*hd], 0)
	}
}

func TestAttentionCausal(t *testing.T) {
	g := NewRand(6)
	const T, heads, kvHeads, hd = 5, 4, 2, 3
	q, k, v := normal(g, T*heads*hd, 1), normal(g, T*kvHeads*hd, 1), normal(g, T*kvHeads*hd, 1)
	base := Attention(q, k, v, T, 0, heads, kvHeads, hd)
	row := heads * hd
	for s := 0; s < T; s++ {
		k2, v2 := append([]float64(nil), k...), append([]float64(nil), v...)
		copy(k2[s*kvHeads*hd:(s+1)*kvHeads*hd], normal(g, kvHeads*hd, 1))
		copy(v2[s*kvHeads*hd:(s+1)*kvHeads*hd], normal(g, kvHeads*hd, 1))
		out := Attention(q, k2, v2, T, 0, heads, kvHeads, hd)
		for r := 0; r < s; r++ { // rows before s never read position s
			assertNear(t, "a row before the changed position", out[r*row:(r+1)*row], base[r*row:(r+1)*row], 0)
		}
		if inner(out[s*row:(s+1)*row], out[s*row:(s+1)*row]) == inner(base[s*row:(s+1)*row], base[s*row:(s+1)*row]) {
			t.Errorf("position %d: its own row did not change when its k and v did", s)
		}
	}
}

func TestAttentionGQAIsRepeatedMHA(t *testing.T) {
	// Query head h uses kv head h/group: the MHA equivalent repeats each kv
	// head group times in place (kv0, kv0, kv0, kv1, kv1, kv1), not tiled.
	g := NewRand(7)
	const T, heads, kvHeads, hd = 4, 6, 2, 5
	const group = heads / kvHeads
	q, k, v := normal(g, T*heads*hd, 1), normal(g, T*kvHeads*hd, 1), normal(g, T*kvHeads*hd, 1)
	repeat := func(x []float64) []float64 {
		out := make([]float64, 0, T*heads*hd)
		for s := 0; s < T; s++ {
			for h := 0; h < heads; h++ {
				kvh := h / group
				out = append(out, x[(s*kvHeads+kvh)*hd:(s*kvHeads+kvh+1)*hd]...)
			}
		}
		return out
	}
	gqa := Attention(q, k, v, T, 0, heads, kvHeads, hd)
	mha := Attention(q, repeat(k), repeat(v), T, 0, heads, heads, hd)
	assertNear(t, "GQA vs MHA with repeated kv heads", gqa, mha, 1e-14)
}

func TestAttentionOffsetIsSuffixOfFull(t *testing.T) {
	// Rows at pos0..pos0+T−1 equal the last T rows of the same attention
	// computed from position 0 (the earlier query rows are arbitrary).
	g := NewRand(8)
	const pos0, T, heads, kvHeads, hd = 3, 2, 4, 2, 3
	n := pos0 + T
	q, k, v := normal(g, n*heads*hd, 1), normal(g, n*kvHeads*hd, 1), normal(g, n*kvHeads*hd, 1)
	full := Attention(q, k, v, n, 0, heads, kvHeads, hd)
	part := Attention(q[pos0*heads*hd:], k, v, T, pos0, heads, kvHeads, hd)
	assertNear(t, "attention with pos0 > 0", part, full[pos0*heads*hd:], 1e-14)
}

func TestAttentionHandComputed(t *testing.T) {
	// hd = 1, one head, two positions. Row 0 sees only position 0, so it is
	// v0 = 2. Row 1 has scores q1·k0 = 0 and q1·k1 = ln 3 (scale 1/sqrt(1) = 1),
	// softmax (1/4, 3/4), output 2/4 + 6·3/4 = 5.
	out := Attention([]float64{7, 1}, []float64{0, math.Log(3)}, []float64{2, 6}, 2, 0, 1, 1, 1)
	assertNear(t, "hd 1", out, []float64{2, 5}, 1e-15)

	// hd = 4, query row at pos0 = 1: q1 = (1,1,1,1), k0 = 0, k1 = (c,c,c,c)
	// with c = ln(3)/2 give scores 0 and 4c/sqrt(4) = ln 3: the same softmax
	// (1/4, 3/4) only if the scale is 1/2. v0 = (2,0,4,−4), v1 = (6,4,0,4)
	// give (2+18, 0+12, 4+0, −4+12)/4 = (5, 3, 1, 2).
	c := math.Log(3) / 2
	out = Attention([]float64{1, 1, 1, 1},
		[]float64{0, 0, 0, 0, c, c, c, c},
		[]float64{2, 0, 4, -4, 6, 4, 0, 4}, 1, 1, 1, 1, 4)
	assertNear(t, "hd 4", out, []float64{5, 3, 1, 2}, 1e-15)
}

// tinyLlama returns the test model's configuration with the given depth.
func tinyLlama(layers int) LlamaConfig {
	return LlamaConfig{Dim: 8, Layers: layers, Heads: 2, KVHeads: 1, HeadDim: 4, FFN: 12, Vocab: 10, RopeBase: 10000, RMSEps: 1e-5}
}

// randomLlama returns seeded random weights for c: norms near 1, matrices
// N(0, 0.4²), tied output, and random q/k/v biases when biases is set.
func randomLlama(c LlamaConfig, seed uint64, biases bool) *LlamaWeights {
	g := NewRand(seed)
	qDim, kvDim := c.Heads*c.HeadDim, c.KVHeads*c.HeadDim
	norm := func() []float64 { return Float64s(g.Normal(c.Dim, 1, 0.1)) }
	w := &LlamaWeights{Embed: normal(g, c.Vocab*c.Dim, 1)}
	for range c.Layers {
		l := LlamaLayer{
			AttnNorm: norm(),
			Wq:       normal(g, qDim*c.Dim, 0.4),
			Wk:       normal(g, kvDim*c.Dim, 0.4),
			Wv:       normal(g, kvDim*c.Dim, 0.4),
			Wo:       normal(g, c.Dim*qDim, 0.4),
			FFNNorm:  norm(),
			Wgate:    normal(g, c.FFN*c.Dim, 0.4),
			Wup:      normal(g, c.FFN*c.Dim, 0.4),
			Wdown:    normal(g, c.Dim*c.FFN, 0.4),
		}
		if biases {
			l.Bq, l.Bk, l.Bv = normal(g, qDim, 0.4), normal(g, kvDim, 0.4), normal(g, kvDim, 0.4)
		}
		w.Layers = append(w.Layers, l)
	}
	w.OutNorm = norm()
	return w
}

// copyLlama returns a deep copy of w, so a test can change one weight.
func copyLlama(w *LlamaWeights) *LlamaWeights {
	cp := func(x []float64) []float64 {
		if x == nil {
			return nil
		}
		return append([]float64(nil), x...)
	}
	out := &LlamaWeights{Embed: cp(w.Embed), OutNorm: cp(w.OutNorm), Output: cp(w.Output)}
	for _, l := range w.Layers {
		out.Layers = append(out.Layers, LlamaLayer{
			AttnNorm: cp(l.AttnNorm), Wq: cp(l.Wq), Wk: cp(l.Wk), Wv: cp(l.Wv),
			Bq: cp(l.Bq), Bk: cp(l.Bk), Bv: cp(l.Bv), Wo: cp(l.Wo),
			FFNNorm: cp(l.FFNNorm), Wgate: cp(l.Wgate), Wup: cp(l.Wup), Wdown: cp(l.Wdown),
		})
	}
	return out
}

// randomTokens returns n seeded token ids below vocab.
func randomTokens(seed uint64, n, vocab int) []int {
	g := NewRand(seed)
	out := make([]int, n)
	for i := range out {
		out[i] = g.Intn(vocab)
	}
	return out
}

// assertLogits fails t unless got and want have the same rows, each near.
func assertLogits(t *testing.T, what string, got, want [][]float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for r := range got {
		assertNear(t, what, got[r], want[r], tol)
	}
}

func TestLlamaForwardCausal(t *testing.T) {
	// (a) The logits of positions 0..t depend only on tokens 0..t.
	for _, layers := range []int{1, 2} {
		c := tinyLlama(layers)
		w := randomLlama(c, 10, true)
		tokens := randomTokens(11, 6, c.Vocab)
		full := LlamaForward(c, w, tokens)
		if len(full) != len(tokens) || len(full[0]) != c.Vocab {
			t.Fatalf("logits are %d×%d, want %d×%d", len(full), len(full[0]), len(tokens), c.Vocab)
		}
		for n := 1; n <= len(tokens); n++ {
			assertLogits(t, "prefix vs full sequence", LlamaForward(c, w, tokens[:n]), full[:n], 1e-12)
		}
	}
}

func TestLlamaForwardTied(t *testing.T) {
	// (b) Output nil means the output projection is Embed.
	for _, layers := range []int{1, 2} {
		c := tinyLlama(layers)
		tied := randomLlama(c, 20, false)
		untied := copyLlama(tied)
		untied.Output = append([]float64(nil), tied.Embed...)
		tokens := randomTokens(21, 5, c.Vocab)
		assertLogits(t, "tied vs untied copy", LlamaForward(c, tied, tokens), LlamaForward(c, untied, tokens), 0)
	}
}

func TestLlamaForwardNoBlocks(t *testing.T) {
	// (c) With Wo and Wdown zero every block adds 0, so the logits are
	// RMSNorm(embedding)·OutNorm·Embedᵀ, computed here by hand.
	for _, layers := range []int{1, 2} {
		c := tinyLlama(layers)
		w := randomLlama(c, 30, true)
		for i := range w.Layers {
			clear(w.Layers[i].Wo)
			clear(w.Layers[i].Wdown)
		}
		tokens := randomTokens(31, 5, c.Vocab)
		got := LlamaForward(c, w, tokens)
		for p, tok := range tokens {
			e := w.Embed[tok*c.Dim : (tok+1)*c.Dim]
			ms := 0.0
			for _, x := range e {
				ms += x * x / float64(c.Dim)
			}
			want := make([]float64, c.Vocab)
			for v := range want {
				for d := 0; d < c.Dim; d++ {
					want[v] += e[d] / math.Sqrt(ms+c.RMSEps) * w.OutNorm[d] * w.Embed[v*c.Dim+d]
				}
			}
			assertNear(t, "logits with zero Wo and Wdown", got[p], want, 1e-12)
		}
	}
}

func TestLlamaForwardZeroBiases(t *testing.T) {
	// (d) Nil biases are the same as all-zero biases.
	for _, layers := range []int{1, 2} {
		c := tinyLlama(layers)
		none := randomLlama(c, 40, false)
		zero := copyLlama(none)
		for i := range zero.Layers {
			l := &zero.Layers[i]
			l.Bq = make([]float64, c.Heads*c.HeadDim)
			l.Bk = make([]float64, c.KVHeads*c.HeadDim)
			l.Bv = make([]float64, c.KVHeads*c.HeadDim)
		}
		tokens := randomTokens(41, 5, c.Vocab)
		assertLogits(t, "nil vs zero biases", LlamaForward(c, none, tokens), LlamaForward(c, zero, tokens), 0)
	}
}

// ggufToHF reorders the rows of a (heads·hd) × cols projection (cols 1 for a
// bias) from GGUF llama order to HF order, per head: HF row j is GGUF row 2j
// and HF row j+hd/2 is GGUF row 2j+1 (docs/unit05.md, 5.2: the permutation
// convert_hf_to_gguf.py undoes).
func ggufToHF(w []float64, heads, hd, cols int) []float64 {
	out := make([]float64, len(w))
	row := func(x []float64, r int) []float64 { return x[r*cols : (r+1)*cols] }
	for h := 0; h < heads; h++ {
		for j := 0; j < hd/2; j++ {
			copy(row(out, h*hd+j), row(w, h*hd+2*j))
			copy(row(out, h*hd+j+hd/2), row(w, h*hd+2*j+1))
		}
	}
	return out
}

func TestLlamaForwardNeoXMatchesPermutedNorm(t *testing.T) {
	// (e) A GGUF llama model (NORM RoPE) and the same model with its q and k
	// rows (and biases) in HF order run with NEOX RoPE give the same logits.
	// This ties the two pairings together through the converter's
	// permutation, independently of either Rope branch alone.
	for _, layers := range []int{1, 2} {
		c := tinyLlama(layers)
		gguf := randomLlama(c, 50, true)
		hf := copyLlama(gguf)
		for i := range hf.Layers {
			l := &hf.Layers[i]
			l.Wq = ggufToHF(l.Wq, c.Heads, c.HeadDim, c.Dim)
			l.Bq = ggufToHF(l.Bq, c.Heads, c.HeadDim, 1)
			l.Wk = ggufToHF(l.Wk, c.KVHeads, c.HeadDim, c.Dim)
			l.Bk = ggufToHF(l.Bk, c.KVHeads, c.HeadDim, 1)
		}
		tokens := randomTokens(51, 6, c.Vocab)
		norm := LlamaForward(c, gguf, tokens)
		cn := c
		cn.NeoX = true
		assertLogits(t, "NEOX on HF rows vs NORM on GGUF rows", LlamaForward(cn, hf, tokens), norm, 1e-12)

		// The check has teeth: NEOX on the GGUF rows is a different model.
		wrong := LlamaForward(cn, gguf, tokens)
		if near(wrong[len(tokens)-1][0], norm[len(tokens)-1][0], 1e-9) {
			t.Error("NEOX on unpermuted rows gave the NORM logits; the test cannot tell the pairings apart")
		}
	}
}

func TestLlamaForwardTwoTokensByHand(t *testing.T) {
	// Two tokens through one block, written out here step by step with the
	// independently tested Rope: row 0 sees only itself, so attention returns
	// v0 there; row 1 mixes v0 and v1 with softmax weights 1−w and
	// w = 1/(1+e^(s0−s1)). Dim 6, q width 16, kv width 8 and FFN 10 all
	// differ, so a transposed weight or a swapped gate/up cannot go unnoticed;
	// this is also what checks that the forward pass rotates both q and k, at
	// the right positions, and maps query head h to kv head h/2.
	for _, neox := range []bool{false, true} {
		c := LlamaConfig{Dim: 6, Layers: 1, Heads: 4, KVHeads: 2, HeadDim: 4, FFN: 10, Vocab: 10, RopeBase: 10000, RMSEps: 1e-5, NeoX: neox}
		w := randomLlama(c, 60, true)
		w.Output = normal(NewRand(61), c.Vocab*c.Dim, 1)
		l := w.Layers[0]
		mv := func(W, b, x []float64) []float64 { // W·x + b, W row-major, b may be nil
			y := make([]float64, len(W)/len(x))
			for o := range y {
				for i := range x {
					y[o] += W[o*len(x)+i] * x[i]
				}
				if b != nil {
					y[o] += b[o]
				}
			}
			return y
		}
		rms := func(x, g []float64) []float64 {
			ms := 0.0
			for _, v := range x {
				ms += v * v / float64(len(x))
			}
			y := make([]float64, len(x))
			for i := range x {
				y[i] = x[i] / math.Sqrt(ms+c.RMSEps) * g[i]
			}
			return y
		}
		const hd = 4
		head := func(x []float64, i int) []float64 { return x[i*hd : (i+1)*hd] }
		tokens := []int{7, 2}
		var h, q, k, v [2][]float64
		for p, tok := range tokens {
			h[p] = append([]float64(nil), w.Embed[tok*c.Dim:(tok+1)*c.Dim]...)
			x := rms(h[p], l.AttnNorm)
			q[p], k[p], v[p] = mv(l.Wq, l.Bq, x), mv(l.Wk, l.Bk, x), mv(l.Wv, l.Bv, x)
			for i := 0; i < 4; i++ {
				Rope(head(q[p], i), p, 10000, neox)
			}
			for i := 0; i < 2; i++ {
				Rope(head(k[p], i), p, 10000, neox)
			}
		}
		var attn [2][]float64
		for i := 0; i < 4; i++ { // query head i reads kv head i/2
			attn[0] = append(attn[0], head(v[0], i/2)...)
			s0 := inner(head(q[1], i), head(k[0], i/2)) / 2 // 1/sqrt(hd) = 1/2
			s1 := inner(head(q[1], i), head(k[1], i/2)) / 2
			wt := 1 / (1 + math.Exp(s0-s1))
			for j := 0; j < hd; j++ {
				attn[1] = append(attn[1], (1-wt)*head(v[0], i/2)[j]+wt*head(v[1], i/2)[j])
			}
		}
		for p := range tokens {
			for i, d := range mv(l.Wo, nil, attn[p]) {
				h[p][i] += d
			}
			x := rms(h[p], l.FFNNorm)
			gate, up := mv(l.Wgate, nil, x), mv(l.Wup, nil, x)
			act := make([]float64, c.FFN)
			for i := range act {
				act[i] = gate[i] / (1 + math.Exp(-gate[i])) * up[i]
			}
			for i, d := range mv(l.Wdown, nil, act) {
				h[p][i] += d
			}
		}
		got := LlamaForward(c, w, tokens)
		for p := range tokens {
			assertNear(t, "logits by hand", got[p], mv(w.Output, nil, rms(h[p], w.OutNorm)), 1e-12)
		}
	}
}

func TestLlamaForwardPanicsOnBadToken(t *testing.T) {
	c := tinyLlama(1)
	w := randomLlama(c, 70, false)
	for _, tok := range []int{-1, c.Vocab} {
		if _, ok := Panics(func() { LlamaForward(c, w, []int{0, tok}) }); !ok {
			t.Errorf("token %d of a %d-token vocabulary did not panic", tok, c.Vocab)
		}
	}
}

func TestYarnCorrDims(t *testing.T) {
	// By hand, head 8, base 10⁴, a context of 64: the pair that turns 32
	// times is 8·ln(64/(2π·32))/(2·ln 10⁴) = −0.497, rounded down −1 and
	// clamped to 0; the one that turns once is 1.008, rounded up 2. Qwen2.5's
	// (head 128, base 10⁶, 32768): 23.60 → 23 and 39.65 → 40. A tiny context
	// clamps high to 0 (no pair turns even once); a huge one clamps high to
	// d−1 but not low, as ggml does (then every pair is extrapolated).
	for _, c := range []struct {
		hd, ctx   int
		base      float64
		low, high float64
	}{{8, 64, 10000, 0, 2}, {128, 32768, 1e6, 23, 40}, {8, 2, 10000, 0, 0}, {8, 1 << 30, 10, 26, 7}} {
		low, high := YarnCorrDims(c.hd, c.ctx, c.base, 32, 1)
		if low != c.low || high != c.high {
			t.Errorf("YarnCorrDims(%d, %d, %g, 32, 1) = %v, %v; want %v, %v", c.hd, c.ctx, c.base, low, high, c.low, c.high)
		}
	}
}

func TestRopeYarn(t *testing.T) {
	// By hand, head 8, base 10⁴, factor 4, a context of 64 (ramp from pair 0
	// to 2: ramps 1, ½, 0, 0) at position 10: pair 0 keeps its angle 10,
	// pair 1 mixes 1/4 and 1 half and half (10·0.1·0.625 = 0.625), pairs 2
	// and 3 are interpolated (0.1/4, 0.01/4), and every cos and sin is
	// multiplied by 1 + 0.1·ln 4 = 1.1386.
	y := &Yarn{Factor: 4, OrigCtx: 64, BetaFast: 32, BetaSlow: 1, AttnFactor: 1}
	x := []float64{1, 0, 1, 0, 1, 0, 1, 0}
	RopeYarn(x, 10, 10000, false, nil, y)
	assertNear(t, "RopeYarn by hand", x, []float64{-0.9553915420099455, -0.6194384507249809, 0.9233864794698459, 0.666208977958861,
		1.1382736329451981, 0.028462770814637044, 1.1386258778968545, 0.002846570625100076}, 1e-14)

	g := NewRand(5)
	for _, neox := range []bool{false, true} {
		// Factor 1 and AttnFactor 1 is plain RoPE, and nil is RopeFactors.
		x := normal(g, 16, 1)
		factors := []float64{1, 2, 3, 4, 5, 6, 7, 8}
		got, want := append([]float64(nil), x...), append([]float64(nil), x...)
		RopeYarn(got, 77, 10000, neox, factors, &Yarn{Factor: 1, OrigCtx: 64, BetaFast: 32, BetaSlow: 1, AttnFactor: 1})
		RopeFactors(want, 77, 10000, neox, factors)
		assertNear(t, "RopeYarn of factor 1 vs RopeFactors", got, want, 1e-13)
		got = append([]float64(nil), x...)
		RopeYarn(got, 77, 10000, neox, factors, nil)
		assertNear(t, "RopeYarn(nil) vs RopeFactors", got, want, 0)
		// AttnFactor a and YaRN's own temperature scale every pair's length.
		got = append([]float64(nil), x...)
		RopeYarn(got, 300, 10000, neox, factors, &Yarn{Factor: 8, OrigCtx: 32, BetaFast: 32, BetaSlow: 1, AttnFactor: 0.5})
		m := 0.5 * (1 + 0.1*math.Log(8))
		for i := 0; i < 8; i++ {
			ia, ib := 2*i, 2*i+1
			if neox {
				ia, ib = i, i+8
			}
			if r0, r1 := math.Hypot(x[ia], x[ib]), math.Hypot(got[ia], got[ib]); math.Abs(r1-m*r0) > 1e-13 {
				t.Errorf("RopeYarn with AttnFactor 0.5, factor 8: pair %d has length %v, want %v·%v", i, r1, m, r0)
			}
		}
	}
}
