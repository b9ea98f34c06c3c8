package oracle

import "math"

// Float64 references for the math kernels of unit02. Each works on float64
// values and uses the formulation that stays accurate over the whole range,
// so the only error left in a float32 kernel is its own.

// SiLU returns x·σ(x) = x / (1 + e^−x).
func SiLU(x float64) float64 {
	if x < -700 { // e^−x overflows float64; the true value is below 1e-300
		return x * math.Exp(x)
	}
	return x / (1 + math.Exp(-x))
}

// GELU returns x·Φ(x), Φ the standard normal CDF, written with erfc so that
// it keeps its relative accuracy for large negative x (1 + erf(x/√2) would
// cancel to 0).
func GELU(x float64) float64 {
	return 0.5 * x * math.Erfc(-x/math.Sqrt2)
}

// GELUTanh returns the tanh approximation of GELU,
// 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), written as x·σ(2u), which
// equals it exactly and does not cancel for large negative x.
func GELUTanh(x float64) float64 {
	u := math.Sqrt(2/math.Pi) * (x + 0.044715*x*x*x)
	return x * sigmoid(2*u)
}

func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// RMSNorm returns x / sqrt(mean(x²) + eps) · w.
func RMSNorm(x, w []float64, eps float64) []float64 {
	ss := 0.0
	for _, v := range x {
		ss += v * v
	}
	inv := 1 / math.Sqrt(ss/float64(len(x))+eps)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v * inv * w[i]
	}
	return out
}

// LayerNorm returns (x − mean) / sqrt(var + eps) · w + b (b may be nil),
// with the population variance.
func LayerNorm(x, w, b []float64, eps float64) []float64 {
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	variance := 0.0
	for _, v := range x {
		variance += (v - mean) * (v - mean)
	}
	variance /= float64(len(x))
	inv := 1 / math.Sqrt(variance+eps)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = (v - mean) * inv * w[i]
		if b != nil {
			out[i] += b[i]
		}
	}
	return out
}

// Softmax returns softmax(x/temp + mask) (mask may be nil). A row whose
// every entry is −Inf gives all zeros.
func Softmax(x []float64, temp float64, mask []float64) []float64 {
	z, m := logits(x, temp, mask)
	out := make([]float64, len(x))
	if math.IsInf(m, -1) {
		return out
	}
	sum := 0.0
	for i, v := range z {
		out[i] = math.Exp(v - m)
		sum += out[i]
	}
	for i := range out {
		out[i] /= sum
	}
	return out
}

// LogSoftmax returns log(softmax(x/temp + mask)). A row whose every entry
// is −Inf gives all −Inf.
func LogSoftmax(x []float64, temp float64, mask []float64) []float64 {
	z, m := logits(x, temp, mask)
	out := make([]float64, len(x))
	if math.IsInf(m, -1) {
		for i := range out {
			out[i] = math.Inf(-1)
		}
		return out
	}
	sum := 0.0
	for _, v := range z {
		sum += math.Exp(v - m)
	}
	lse := m + math.Log(sum)
	for i, v := range z {
		out[i] = v - lse
	}
	return out
}

// logits returns x/temp + mask and its maximum.
func logits(x []float64, temp float64, mask []float64) ([]float64, float64) {
	z := make([]float64, len(x))
	m := math.Inf(-1)
	for i, v := range x {
		z[i] = v / temp
		if mask != nil {
			z[i] += mask[i]
		}
		m = math.Max(m, z[i])
	}
	return z, m
}

// Sum returns the sum of x computed with Neumaier's compensated summation
// in float64: for float32 inputs it is exact to well below float32's
// precision.
func Sum(x []float32) float64 {
	s, c := 0.0, 0.0
	for _, f := range x {
		v := float64(f)
		t := s + v
		if math.Abs(s) >= math.Abs(v) {
			c += (s - t) + v
		} else {
			c += (v - t) + s
		}
		s = t
	}
	return s + c
}

// SumAbs returns Σ|x|, the scale of summation error bounds.
func SumAbs(x []float32) float64 {
	s := 0.0
	for _, f := range x {
		s += math.Abs(float64(f))
	}
	return s
}
