package unit06

import (
	"fmt"
	"math"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit02"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
)

// MoE is one layer's mixture-of-experts feed-forward block: each token
// runs only the experts its router chooses. It implements unit05.FFN, so a
// unit05.Layer runs it in place of a dense feed-forward. Its scratch
// memory grows to the most rows it has been given and is then reused: a
// decode step allocates nothing. An MoE is not safe for concurrent use.
type MoE struct {
	w                 *Weights
	experts, dim, ffn int
	sharedFFN         int // 0: no shared expert
	rows              int // the rows the scratch holds
	logits            unit03.Mat
	choices           []Choice // k per row
	start, next       []int    // per expert: its first grouped row, the next free one
	grouped           []int    // per (row, slot): the grouped row of its expert's output
	xs, ys            unit03.Mat
	gate, up          unit03.Mat
	sharedG, sharedU  unit03.Mat
	sharedY           unit03.Mat
}

// New checks w and makes its block. Every matrix must be there with the
// shape the router's (Experts × Dim) and the first expert's gate
// (FFN × Dim) imply, 1 ≤ Used ≤ Experts ≤ MaxExperts, and the shared expert
// all there or all nil. The error names the tensor as GGUF does
// (ffn_up_exps, expert 3) and wraps unit00.ErrInvalid.
func New(w *Weights) (*MoE, error) {
	bad := func(name, format string, args ...any) error {
		return fmt.Errorf("moe: %s: %s: %w", name, fmt.Sprintf(format, args...), unit00.ErrInvalid)
	}
	if w.Router == nil {
		return nil, bad("ffn_gate_inp", "missing")
	}
	experts, dim := w.Router.Dims()
	if experts < 1 || experts > MaxExperts || dim < 1 {
		return nil, bad("ffn_gate_inp", "%d×%d: want 1 to %d experts of a positive width", experts, dim, MaxExperts)
	}
	if w.Used < 1 || w.Used > experts {
		return nil, bad("expert_used_count", "%d of %d experts", w.Used, experts)
	}
	if len(w.Gate) != experts || len(w.Up) != experts || len(w.Down) != experts {
		return nil, bad("ffn_gate_exps", "%d experts in the router, %d gate, %d up and %d down matrices", experts, len(w.Gate), len(w.Up), len(w.Down))
	}
	if w.Gate[0] == nil {
		return nil, bad("ffn_gate_exps", "expert 0 missing")
	}
	ffn, _ := w.Gate[0].Dims()
	for e := range experts {
		for _, m := range []struct {
			name    string
			m       unit05.Matrix
			out, in int
		}{{"ffn_gate_exps", w.Gate[e], ffn, dim}, {"ffn_up_exps", w.Up[e], ffn, dim}, {"ffn_down_exps", w.Down[e], dim, ffn}} {
			if err := shape(m.m, m.out, m.in); err != "" {
				return nil, bad(m.name, "expert %d: %s", e, err)
			}
		}
	}
	shared, err := checkShared(w, dim)
	if err != nil {
		return nil, err
	}
	return &MoE{w: w, experts: experts, dim: dim, ffn: ffn, sharedFFN: shared}, nil
}

// checkShared checks the shared expert and returns its width, 0 when the
// layer has none.
func checkShared(w *Weights, dim int) (int, error) {
	if w.SharedGateInp == nil && w.SharedGate == nil && w.SharedUp == nil && w.SharedDown == nil {
		return 0, nil
	}
	bad := func(name, format string, args ...any) error {
		return fmt.Errorf("moe: %s: %s: %w", name, fmt.Sprintf(format, args...), unit00.ErrInvalid)
	}
	if len(w.SharedGateInp) != dim {
		return 0, bad("ffn_gate_inp_shexp", "length %d, want %d", len(w.SharedGateInp), dim)
	}
	if w.SharedGate == nil {
		return 0, bad("ffn_gate_shexp", "missing")
	}
	ffn, _ := w.SharedGate.Dims()
	for _, m := range []struct {
		name    string
		m       unit05.Matrix
		out, in int
	}{{"ffn_gate_shexp", w.SharedGate, ffn, dim}, {"ffn_up_shexp", w.SharedUp, ffn, dim}, {"ffn_down_shexp", w.SharedDown, dim, ffn}} {
		if err := shape(m.m, m.out, m.in); err != "" {
			return 0, bad(m.name, "%s", err)
		}
	}
	return ffn, nil
}

// shape says what is wrong with m's shape, "" when it is out × in.
func shape(m unit05.Matrix, out, in int) string {
	if m == nil {
		return "missing"
	}
	if o, i := m.Dims(); o != out || i != in || out < 1 {
		return fmt.Sprintf("%d×%d, want %d×%d", o, i, out, in)
	}
	return ""
}

// Weights returns the weights the block was made with.
func (m *MoE) Weights() *Weights { return m.w }

// Width is the model width the block reads and writes.
func (m *MoE) Width() int { return m.dim }

// grow makes the scratch hold rows rows: the router's logits, k choices
// and k expert rows (inputs, gate, up, outputs) per row, the shared
// expert's rows.
func (m *MoE) grow(rows int) {
	if rows <= m.rows {
		return
	}
	k := m.w.Used
	m.rows = rows
	m.logits = unit03.NewMat(rows, m.experts)
	m.choices = make([]Choice, rows*k)
	m.start, m.next = make([]int, m.experts), make([]int, m.experts)
	m.grouped = make([]int, rows*k)
	m.xs, m.ys = unit03.NewMat(rows*k, m.dim), unit03.NewMat(rows*k, m.dim)
	m.gate, m.up = unit03.NewMat(rows*k, m.ffn), unit03.NewMat(rows*k, m.ffn)
	if m.sharedFFN > 0 {
		m.sharedG, m.sharedU = unit03.NewMat(rows, m.sharedFFN), unit03.NewMat(rows, m.sharedFFN)
		m.sharedY = unit03.NewMat(rows, m.dim)
	}
}

// Token sets out to the block applied to one token's normalised hidden
// state x (both Dim long, not overlapping): Σ over the chosen experts, most
// probable first, of weight · Down_e(SiLU(Gate_e·x) ⊙ Up_e·x), plus the
// shared expert's output times σ(SharedGateInp·x) when the layer has one.
// It reads the weights of the chosen experts only. p may be nil.
func (m *MoE) Token(p *unit03.Pool, out, x []float32) {
	unit00.Check(len(x) == m.dim && len(out) == m.dim, "MoE.Token: x and out must be Dim long")
	m.grow(1)
	k := m.w.Used
	xm, om := unit03.MatOf(1, m.dim, x), unit03.MatOf(1, m.dim, out)
	logits := m.logits.Block(0, 1, 0, m.experts)
	m.w.Router.MulT(p, logits, xm)
	choices := m.choices[:k]
	Route(choices, logits.Row(0), m.w.Renormalize)
	g, u, y := m.gate.Block(0, 1, 0, m.ffn), m.up.Block(0, 1, 0, m.ffn), m.ys.Block(0, 1, 0, m.dim)
	clear(out)
	for _, c := range choices {
		m.expert(p, c.Expert, y, g, u, xm)
		axpy(out, c.Weight, y.Row(0))
	}
	m.addShared(p, om, xm)
}

// FeedForward sets out to the block applied to every row of x (T × Dim
// each, not overlapping), as Token does for one; no rows, nothing. A
// decode step (T = 1) goes to Token. A prompt's rows are grouped by
// expert first, so that each expert multiplies all of its rows at once:
// one matrix product per expert and layer, as ggml's mul_mat_id does,
// instead of one matrix–vector product per token and expert.
func (m *MoE) FeedForward(p *unit03.Pool, out, x unit03.Mat) {
	T, k := x.Rows, m.w.Used
	unit00.Check(x.Cols == m.dim && out.Cols == m.dim && out.Rows == T, "MoE.FeedForward: x and out must be T × Dim")
	switch T {
	case 0:
		return // no rows: nothing to compute
	case 1:
		m.Token(p, out.Row(0), x.Row(0))
		return
	}
	m.grow(T)
	logits := m.logits.Block(0, T, 0, m.experts)
	m.w.Router.MulT(p, logits, x)
	// Route every row and count each expert's rows.
	clear(m.start)
	for t := range T {
		choices := m.choices[t*k : (t+1)*k]
		Route(choices, logits.Row(t), m.w.Renormalize)
		for _, c := range choices {
			m.start[c.Expert]++
		}
	}
	// Expert e's rows are grouped rows start[e] … start[e]+count−1: turn
	// the counts into starts, then copy each row to its experts' groups.
	at := 0
	for e, n := range m.start {
		m.start[e], m.next[e] = at, at
		at += n
	}
	for t := range T {
		for s, c := range m.choices[t*k : (t+1)*k] {
			r := m.next[c.Expert]
			m.next[c.Expert]++
			m.grouped[t*k+s] = r
			copy(m.xs.Row(r), x.Row(t))
		}
	}
	// One product per expert over its group.
	for e := range m.experts {
		r0, r1 := m.start[e], m.next[e]
		if r0 == r1 {
			continue
		}
		m.expert(p, e, m.ys.Block(r0, r1, 0, m.dim), m.gate.Block(r0, r1, 0, m.ffn), m.up.Block(r0, r1, 0, m.ffn), m.xs.Block(r0, r1, 0, m.dim))
	}
	// Scatter back: each row's experts, weighted, in slot order.
	for t := range T {
		o := out.Row(t)
		clear(o)
		for s, c := range m.choices[t*k : (t+1)*k] {
			axpy(o, c.Weight, m.ys.Row(m.grouped[t*k+s]))
		}
	}
	m.addShared(p, out, x)
}

// expert sets y to expert e's SwiGLU FFN of the rows of x, with gate and up
// as scratch.
func (m *MoE) expert(p *unit03.Pool, e int, y, gate, up, x unit03.Mat) {
	m.w.Gate[e].MulT(p, gate, x)
	m.w.Up[e].MulT(p, up, x)
	for r := range x.Rows {
		unit02.SwiGLU(gate.Row(r), gate.Row(r), up.Row(r))
	}
	m.w.Down[e].MulT(p, y, gate)
}

// addShared adds the shared expert's output, times its gate, to every row
// of out: the Qwen2-MoE shared expert. Without one it does nothing.
func (m *MoE) addShared(p *unit03.Pool, out, x unit03.Mat) {
	if m.sharedFFN == 0 {
		return
	}
	w, T := m.w, x.Rows
	g, u, y := m.sharedG.Block(0, T, 0, m.sharedFFN), m.sharedU.Block(0, T, 0, m.sharedFFN), m.sharedY.Block(0, T, 0, m.dim)
	w.SharedGate.MulT(p, g, x)
	w.SharedUp.MulT(p, u, x)
	for t := range T {
		unit02.SwiGLU(g.Row(t), g.Row(t), u.Row(t))
	}
	w.SharedDown.MulT(p, y, g)
	for t := range T {
		z := 0.0
		for i, v := range x.Row(t) {
			z += float64(w.SharedGateInp[i]) * float64(v)
		}
		axpy(out.Row(t), float32(1/(1+math.Exp(-z))), y.Row(t))
	}
}

// axpy adds alpha·x to y.
func axpy(y []float32, alpha float32, x []float32) {
	x = x[:len(y)]
	for i := range y {
		y[i] += alpha * x[i]
	}
}
