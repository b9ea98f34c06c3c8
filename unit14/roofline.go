package unit14

import (
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit05"
)

// Cost is the work of a piece of computation as a roofline sees it: the
// arithmetic it does and the bytes it moves between memory and the cores.
type Cost struct {
	Ops   float64 // arithmetic operations; a multiply-add counts as two
	Bytes float64 // bytes read from or written to memory
}

// Add returns the cost of doing c and then d.
func (c Cost) Add(d Cost) Cost {
	panic("TODO(14.1): write Cost.Add, see docs/unit14.md")
}

// Intensity is the arithmetic intensity Ops/Bytes: how many operations
// the computation does per byte it moves. A cost that moves no bytes has
// an infinite intensity, or 0 if it does nothing at all.
func (c Cost) Intensity() float64 {
	panic("TODO(14.1): write Cost.Intensity, see docs/unit14.md")
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
func (r Roof) Seconds(c Cost) float64 {
	panic("TODO(14.1): write Roof.Seconds, see docs/unit14.md")
}

// Ridge is the intensity where the two roofs meet, Ops/Bytes: a kernel of
// lower intensity is bound by memory, one of higher intensity by
// arithmetic.
func (r Roof) Ridge() float64 {
	panic("TODO(14.1): write Roof.Ridge, see docs/unit14.md")
}

// Attainable is the operations per second a kernel of the given intensity
// can reach at best: intensity × bandwidth below the ridge, the peak above
// it.
func (r Roof) Attainable(intensity float64) float64 {
	panic("TODO(14.1): write Roof.Attainable, see docs/unit14.md")
}

// MatMulCost is the cost of y = x·Wᵀ for a rows×cols weight matrix of type
// dt and T rows of float32 activations: 2·rows·cols·T operations, and the
// weights read once (as llm's kernels read them: each weight row, once
// loaded, meets every activation row), the T×cols activations read and the
// T×rows results written, four bytes each. T = 0 costs nothing. Sizes
// that are not positive (rows, cols) or negative (T) are an error wrapping
// unit00.ErrInvalid, as is a dt whose rows cols elements cannot make
// (unit01.DType.RowBytes).
func MatMulCost(dt unit01.DType, rows, cols, T int) (Cost, error) {
	panic("TODO(14.1): write MatMulCost, see docs/unit14.md")
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
	panic("TODO(14.1): write PassCost, see docs/unit14.md")
}
