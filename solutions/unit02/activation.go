package unit02

import (
	"math"

	"github.com/llmforge/forge/unit00"
)

// SiLU sets dst[i] = x[i]·σ(x[i]) = x[i] / (1 + e^−x[i]), the activation of
// Llama's feed-forward gate. dst may be x. It stays finite for every finite
// input: for very negative x the exponential overflows to +Inf and the
// quotient is a correctly signed zero. It panics (unit00.Check) if the
// lengths differ.
func SiLU(dst, x []float32) {
	unit00.Check(len(x) == len(dst), "SiLU: lengths differ")
	done := siluKernel(dst, x)
	for i := done; i < len(dst); i++ {
		dst[i] = x[i] / (1 + expf(-x[i]))
	}
}

// SwiGLU sets dst[i] = SiLU(gate[i]) · up[i], the gated unit of Llama's
// feed-forward block. dst may be gate or up. It panics (unit00.Check) if the
// lengths differ.
func SwiGLU(dst, gate, up []float32) {
	unit00.Check(len(gate) == len(dst) && len(up) == len(dst), "SwiGLU: lengths differ")
	done := swigluKernel(dst, gate, up)
	for i := done; i < len(dst); i++ {
		g := gate[i]
		dst[i] = g / (1 + expf(-g)) * up[i]
	}
}

// GELU sets dst[i] = x·Φ(x), Φ the standard normal CDF, in its exact erf
// form. It computes 0.5·x·erfc(−x/√2) in float64: the same function as
// 0.5·x·(1 + erf(x/√2)), but without the cancellation that makes 1 + erf
// round to 0 for large negative x. dst may be x.
func GELU(dst, x []float32) {
	unit00.Check(len(x) == len(dst), "GELU: lengths differ")
	for i, v := range x {
		dst[i] = float32(0.5 * float64(v) * math.Erfc(-float64(v)/math.Sqrt2))
	}
}

// GELUTanh sets dst[i] to the tanh approximation of GELU,
// 0.5·x·(1 + tanh(u)) with u = √(2/π)·(x + 0.044715·x³). Since
// 1 + tanh(u) = 2·σ(2u), it computes x·σ(2u), which does not cancel for
// large negative x. dst may be x.
func GELUTanh(dst, x []float32) {
	unit00.Check(len(x) == len(dst), "GELUTanh: lengths differ")
	const c = 0.7978845608028654 // √(2/π)
	for i, v := range x {
		x := float64(v)
		u := c * (x + 0.044715*x*x*x)
		dst[i] = float32(x / (1 + math.Exp(-2*u)))
	}
}
