package unit05

import (
	"math"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit02"
	"github.com/llmforge/forge/unit03"
)

// Attention computes causal grouped-query attention for the T rows of q,
// the tokens at positions pos0 … pos0+T−1. Each row holds heads query heads
// of width hd = q.Cols/heads side by side; k and v hold the keys and values
// of positions 0 … pos0+T−1 (at least pos0+T rows), kvHeads heads each.
// Query head h reads key/value head h/(heads/kvHeads), so each group of
// consecutive query heads shares one head (GQA; kvHeads = 1 is MQA, kvHeads
// = heads is MHA). Row t attends to positions 0 … pos0+t and no later one
// (causal), with scores q·k/√hd turned into weights by a softmax:
//
//	out[t, h] = Σ_{p ≤ pos0+t} softmax_p(q[t,h]·k[p,g] / √hd) · v[p,g],  g = h/(heads/kvHeads)
//
// out (T × q.Cols) is overwritten; scores is scratch of at least pos0+T
// floats. It panics (unit00.Check) on shapes that do not fit.
//
// This is the row road: one row's scores at a time, which is what a
// decode step needs. Model.Block takes attentionGEMM, the prompt road, for
// a band of several rows.
func Attention(out, q, k, v unit03.Mat, heads, kvHeads, pos0 int, scores []float32) {
	T := q.Rows
	unit00.Check(heads > 0 && kvHeads > 0 && heads%kvHeads == 0 && q.Cols%heads == 0, "Attention: heads must divide q's width and be a multiple of kvHeads")
	hd := q.Cols / heads
	unit00.Check(out.Rows == T && out.Cols == q.Cols, "Attention: out must have q's shape")
	unit00.Check(k.Cols == kvHeads*hd && v.Cols == k.Cols, "Attention: k and v must be kvHeads·hd wide")
	unit00.Check(pos0 >= 0 && k.Rows >= pos0+T && v.Rows >= pos0+T && len(scores) >= pos0+T, "Attention: k, v and scores must cover positions 0 … pos0+T−1")
	group := heads / kvHeads
	scale := float32(1 / math.Sqrt(float64(hd)))
	for t := range T {
		n := pos0 + t + 1 // the positions row t may see
		s := scores[:n]
		for h := range heads {
			g := h / group
			qh := q.Row(t)[h*hd : (h+1)*hd]
			for p := range n {
				s[p] = dot(qh, k.Row(p)[g*hd:(g+1)*hd]) * scale
			}
			unit02.SoftmaxRow(s, s, 1, nil)
			oh := out.Row(t)[h*hd : (h+1)*hd]
			clear(oh)
			for p := range n {
				axpy(oh, s[p], v.Row(p)[g*hd:(g+1)*hd])
			}
		}
	}
}

// dot returns Σ a[i]·b[i], with four partial sums so the additions do not
// wait on each other.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy adds alpha·x to y.
func axpy(y []float32, alpha float32, x []float32) {
	x = x[:len(y)]
	for i := range y {
		y[i] += alpha * x[i]
	}
}

// attentionGEMM is Attention's prompt road, the same result for T rows
// at once with T × S scratch s (S = pos0+T positions; k and v exactly S
// rows): for each head, s = Q_h·K_gᵀ with unit03's kernels,
// then row t's softmax over the positions it may see (scaled by 1/√hd,
// the later ones set to 0), then out_h = s·V_g. The masked scores are
// computed and thrown away: at most half of a T × S product, against
// products an order of magnitude faster than the dot products of the row
// road.
func attentionGEMM(out, q, k, v unit03.Mat, heads, kvHeads, pos0 int, s unit03.Mat) {
	T, hd := q.Rows, q.Cols/heads
	group := heads / kvHeads
	temp := float32(math.Sqrt(float64(hd))) // softmax(x/temp) = softmax(x/√hd)
	kern := unit03.Best()
	for h := range heads {
		g := h / group
		unit03.MatMulT(nil, kern, s, q.Block(0, T, h*hd, (h+1)*hd), k.Block(0, k.Rows, g*hd, (g+1)*hd))
		for t := range T {
			row, n := s.Row(t), pos0+t+1
			unit02.SoftmaxRow(row[:n], row[:n], temp, nil)
			clear(row[n:])
		}
		unit03.MatMul(nil, kern, out.Block(0, T, h*hd, (h+1)*hd), s, v.Block(0, v.Rows, g*hd, (g+1)*hd))
	}
}
