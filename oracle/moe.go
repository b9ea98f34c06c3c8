package oracle

import (
	"fmt"
	"sort"
)

// A float64 reference of a mixture-of-experts feed-forward block, as
// llama.cpp's build_moe_ffn computes it for the architectures Forge runs:
// the router's logits, a softmax over every expert, the k most probable
// experts (a tie goes to the lower index), their probabilities as weights
// (renormalised to sum to 1 for Mixtral and Qwen3-MoE, used unchanged for
// Qwen2-MoE and OLMoE), each chosen expert's SwiGLU FFN times its weight,
// plus an optional shared expert gated by a sigmoid (Qwen2-MoE).
//
// It is dense on purpose: every expert is computed for every token, then
// the weights pick what counts. A sparse implementation that reads only the
// chosen experts must give the same numbers.

// MoELayer holds one layer's mixture-of-experts weights, row-major [out, in].
type MoELayer struct {
	Experts, Used int // E experts, k of them used per token
	FFN           int // width of one expert's hidden layer
	// Router is Experts × Dim: ffn_gate_inp.
	Router []float64
	// Gate[e] and Up[e] are FFN × Dim, Down[e] is Dim × FFN: expert e's
	// slices of ffn_gate_exps, ffn_up_exps and ffn_down_exps.
	Gate, Up, Down [][]float64
	// Renormalize divides the k weights by their sum (Mixtral, Qwen3-MoE);
	// false keeps the softmax probabilities (Qwen2-MoE, OLMoE).
	Renormalize bool

	// The shared expert (Qwen2-MoE), run for every token; SharedGateInp nil
	// when the layer has none. SharedGateInp is Dim (ffn_gate_inp_shexp),
	// SharedGate and SharedUp are SharedFFN × Dim, SharedDown Dim × SharedFFN.
	SharedGateInp                    []float64
	SharedFFN                        int
	SharedGate, SharedUp, SharedDown []float64
}

// MoERoute returns the k experts a token's router logits choose, most
// probable first (a tie: the lower index first), and their weights: the
// softmax probabilities over all experts, divided by their sum when
// renormalize is set.
func MoERoute(logits []float64, k int, renormalize bool) (experts []int, weights []float64) {
	if k <= 0 || k > len(logits) {
		panic(fmt.Sprintf("oracle.MoERoute: k = %d for %d experts", k, len(logits)))
	}
	probs := Softmax(logits, 1, nil)
	order := make([]int, len(probs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return probs[order[a]] > probs[order[b]] })
	experts = order[:k]
	weights = make([]float64, k)
	sum := 0.0
	for s, e := range experts {
		weights[s] = probs[e]
		sum += probs[e]
	}
	if renormalize {
		for s := range weights {
			weights[s] /= sum
		}
	}
	return experts, weights
}

// MoE returns the block's output for one token's normalised hidden state x
// (len Dim): Σ over the chosen experts of weight · Down_e(SiLU(Gate_e·x) ⊙
// Up_e·x), plus σ(SharedGateInp·x) · the shared expert's FFN of x when the
// layer has one.
func MoE(m *MoELayer, x []float64) []float64 {
	checkMoE(m, len(x))
	dim := len(x)
	// Every expert, dense.
	all := make([][]float64, m.Experts)
	for e := range all {
		all[e] = swiGLUFFN(m.Gate[e], m.Up[e], m.Down[e], x, m.FFN)
	}
	experts, weights := MoERoute(linear(m.Router, nil, x, m.Experts), m.Used, m.Renormalize)
	out := make([]float64, dim)
	for s, e := range experts {
		for i := range out {
			out[i] += weights[s] * all[e][i]
		}
	}
	if m.SharedGateInp != nil {
		g := sigmoid(dot(m.SharedGateInp, x))
		shared := swiGLUFFN(m.SharedGate, m.SharedUp, m.SharedDown, x, m.SharedFFN)
		for i := range out {
			out[i] += g * shared[i]
		}
	}
	return out
}

// swiGLUFFN returns Down·(SiLU(Gate·x) ⊙ Up·x) for an FFN of width ffn.
func swiGLUFFN(gate, up, down, x []float64, ffn int) []float64 {
	g := linear(gate, nil, x, ffn)
	u := linear(up, nil, x, ffn)
	for i := range g {
		g[i] = SiLU(g[i]) * u[i]
	}
	return linear(down, nil, g, len(x))
}

// checkMoE panics unless every weight of m has the length its counts and
// dim imply.
func checkMoE(m *MoELayer, dim int) {
	if m.Experts <= 0 || m.Used <= 0 || m.Used > m.Experts || m.FFN <= 0 {
		panic(fmt.Sprintf("oracle.MoE: %d experts, %d used, FFN %d", m.Experts, m.Used, m.FFN))
	}
	mustLen("Router", m.Router, m.Experts*dim)
	if len(m.Gate) != m.Experts || len(m.Up) != m.Experts || len(m.Down) != m.Experts {
		panic(fmt.Sprintf("oracle.MoE: %d experts but %d gate, %d up and %d down matrices", m.Experts, len(m.Gate), len(m.Up), len(m.Down)))
	}
	for e := range m.Experts {
		mustLen(fmt.Sprintf("Gate[%d]", e), m.Gate[e], m.FFN*dim)
		mustLen(fmt.Sprintf("Up[%d]", e), m.Up[e], m.FFN*dim)
		mustLen(fmt.Sprintf("Down[%d]", e), m.Down[e], dim*m.FFN)
	}
	if m.SharedGateInp != nil {
		mustLen("SharedGateInp", m.SharedGateInp, dim)
		mustLen("SharedGate", m.SharedGate, m.SharedFFN*dim)
		mustLen("SharedUp", m.SharedUp, m.SharedFFN*dim)
		mustLen("SharedDown", m.SharedDown, dim*m.SharedFFN)
	}
}
