package unit02

// SiLU sets dst[i] = x[i]·σ(x[i]) = x[i] / (1 + e^−x[i]), the activation of
// Llama's feed-forward gate. dst may be x. It stays finite for every finite
// input: for very negative x the exponential overflows to +Inf and the
// quotient is a correctly signed zero. It panics (unit00.Check) if the
// lengths differ.
func SiLU(dst, x []float32) {
	panic("TODO(2.2): write SiLU, see docs/unit02.md")
}

// SwiGLU sets dst[i] = SiLU(gate[i]) · up[i], the gated unit of Llama's
// feed-forward block. dst may be gate or up. It panics (unit00.Check) if the
// lengths differ.
func SwiGLU(dst, gate, up []float32) {
	panic("TODO(2.2): write SwiGLU, see docs/unit02.md")
}

// GELU sets dst[i] = x·Φ(x), Φ the standard normal CDF, in its exact erf
// form. It computes 0.5·x·erfc(−x/√2) in float64: the same function as
// 0.5·x·(1 + erf(x/√2)), but without the cancellation that makes 1 + erf
// round to 0 for large negative x. dst may be x. It panics (unit00.Check)
// if the lengths differ.
func GELU(dst, x []float32) {
	panic("TODO(2.2): write GELU, see docs/unit02.md")
}

// GELUTanh sets dst[i] to the tanh approximation of GELU,
// 0.5·x·(1 + tanh(u)) with u = √(2/π)·(x + 0.044715·x³). Since
// 1 + tanh(u) = 2·σ(2u), it computes x·σ(2u), which does not cancel for
// large negative x. dst may be x. It panics (unit00.Check) if the lengths
// differ.
func GELUTanh(dst, x []float32) {
	panic("TODO(2.2): write GELUTanh, see docs/unit02.md")
}
