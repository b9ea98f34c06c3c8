package unit14

import (
	"fmt"
	"math"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit09"
)

// Cost is the work of a piece of computation as a roofline sees it: the
// arithmetic it does and the bytes it moves between memory and the cores.
type Cost struct {
	Ops   float64 // arithmetic operations; a multiply-add counts as two
	Bytes float64 // bytes read from or written to memory
}

// Add returns the cost of doing c and then d.
func (c Cost) Add(d Cost) Cost { return Cost{Ops: c.Ops + d.Ops, Bytes: c.Bytes + d.Bytes} }

// Intensity is the arithmetic intensity Ops/Bytes: how many operations
// the computation does per byte it moves. A cost that moves no bytes has
// an infinite intensity, or 0 if it does nothing at all.
func (c Cost) Intensity() float64 {
	if c.Bytes == 0 {
		if c.Ops == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return c.Ops / c.Bytes
}

// Roof is what a machine can sustain: its peak arithmetic rate and its
// memory bandwidth, both measured (an FMA loop and a read stream), both
// per second.
type Roof struct {
	Ops   float64 // operations per second at peak
	Bytes float64 // bytes per second the memory delivers
}

// Seconds is the least time the machine can do c in: the arithmetic and
// the memory traffic overlap at best, so the slower of the two bounds it.
func (r Roof) Seconds(c Cost) float64 { return max(c.Ops/r.Ops, c.Bytes/r.Bytes) }

// Ridge is the intensity where the two roofs meet, Ops/Bytes: a kernel of
// lower intensity is bound by memory, one of higher intensity by
// arithmetic.
func (r Roof) Ridge() float64 { return r.Ops / r.Bytes }

// Attainable is the operations per second a kernel of the given intensity
// can reach at best: intensity × bandwidth below the ridge, the peak above
// it.
func (r Roof) Attainable(intensity float64) float64 { return min(r.Ops, intensity*r.Bytes) }

// MatMulCost is the cost of y = x·Wᵀ for a rows×cols weight matrix of type
// dt and T rows of float32 activations: 2·rows·cols·T operations, and the
// weights read once (as llm's kernels read them: each weight row, once
// loaded, meets every activation row), the T×cols activations read and the
// T×rows results written, four bytes each. T = 0 costs nothing. Sizes
// that are not positive (rows, cols) or negative (T) are an error wrapping
// unit00.ErrInvalid, as is a dt whose rows cols elements cannot make
// (unit01.DType.RowBytes).
func MatMulCost(dt unit01.DType, rows, cols, T int) (Cost, error) {
	if rows <= 0 || cols <= 0 || T < 0 {
		return Cost{}, fmt.Errorf("MatMulCost: a %d×%d matrix times %d rows: want positive sizes and T ≥ 0: %w", rows, cols, T, unit00.ErrInvalid)
	}
	rb, err := dt.RowBytes(cols)
	if err != nil {
		return Cost{}, fmt.Errorf("MatMulCost: %w", err)
	}
	if T == 0 {
		return Cost{}, nil
	}
	r, c, t := float64(rows), float64(cols), float64(T)
	return Cost{Ops: 2 * r * c * t, Bytes: r*float64(rb) + 4*t*c + 4*t*r}, nil
}

// PassCost is the cost of one forward pass of a model: T new tokens after
// depth tokens already in the KV cache, whose keys and values take
// kvBytes bytes per element (2 for an F16 cache, 34/32 for Q8_0). It is
// the sum of
//
//   - every layer's seven products (MatMulCost of Wq, Wk, Wv, Wo, Gate,
//     Up and Down for T rows, each in its own type),
//   - every layer's attention: row t scores and mixes depth+t+1 positions,
//     4·HeadDim operations per query head and position (q·k and the
//     weighted sum of v), and the cache's keys and values of all depth+T
//     positions read once,
//   - the output product for one row: the logits of the last position,
//     which is all that generation needs.
//
// The norms, RoPE, softmax and residual additions are left out: they are
// O(T·Dim) against the products' O(T·Dim²). The weights are unit05.Dense
// (F32) or unit09.QMatrix; another Matrix, or a layer with an MoE block,
// is an error wrapping unit00.ErrUnsupported. T < 1, depth < 0, depth+T
// beyond c.MaxSeq or kvBytes not positive is an error wrapping
// unit00.ErrInvalid.
func PassCost(c unit05.Config, w *unit05.Weights, T, depth int, kvBytes float64) (Cost, error) {
	if T < 1 || depth < 0 || depth+T > c.MaxSeq || !(kvBytes > 0) {
		return Cost{}, fmt.Errorf("PassCost: %d tokens after %d with %v bytes per cached element: want T ≥ 1, depth ≥ 0, depth+T ≤ MaxSeq = %d and bytes > 0: %w", T, depth, kvBytes, c.MaxSeq, unit00.ErrInvalid)
	}
	var total Cost
	for l, layer := range w.Layers {
		if layer.MoE != nil {
			return Cost{}, fmt.Errorf("PassCost: layer %d has a mixture of experts, which this cost model does not count: %w", l, unit00.ErrUnsupported)
		}
		for _, m := range []unit05.Matrix{layer.Wq, layer.Wk, layer.Wv, layer.Wo, layer.Gate, layer.Up, layer.Down} {
			mc, err := matrixCost(m, T)
			if err != nil {
				return Cost{}, fmt.Errorf("PassCost: layer %d: %w", l, err)
			}
			total = total.Add(mc)
		}
		total = total.Add(attentionCost(c, T, depth, kvBytes))
	}
	out, err := matrixCost(w.Output, 1)
	if err != nil {
		return Cost{}, fmt.Errorf("PassCost: output: %w", err)
	}
	return total.Add(out), nil
}

// matrixCost is MatMulCost for a Matrix of a type it knows.
func matrixCost(m unit05.Matrix, T int) (Cost, error) {
	rows, cols := m.Dims()
	switch m := m.(type) {
	case *unit09.QMatrix:
		return MatMulCost(m.Type, rows, cols, T)
	case *unit05.Dense:
		return MatMulCost(unit01.F32, rows, cols, T)
	}
	return Cost{}, fmt.Errorf("a %T matrix, not unit05.Dense or unit09.QMatrix: %w", m, unit00.ErrUnsupported)
}

// attentionCost is one layer's attention over the cache: rows t = 0 … T−1
// see depth+t+1 positions each, T·depth + T(T+1)/2 in all.
func attentionCost(c unit05.Config, T, depth int, kvBytes float64) Cost {
	t, d := float64(T), float64(depth)
	seen := t*d + t*(t+1)/2
	return Cost{
		Ops:   4 * float64(c.Heads*c.HeadDim) * seen,
		Bytes: 2 * float64(c.KVDim()) * (d + t) * kvBytes,
	}
}
