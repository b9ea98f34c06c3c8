package oracle

import (
	"math"
	"math/rand/v2"
)

// Rand is a seeded source of test data. The same seed gives the same data on
// every machine and Go version (PCG from math/rand/v2 is specified exactly).
type Rand struct {
	r *rand.Rand
}

// NewRand returns a generator seeded with seed.
func NewRand(seed uint64) *Rand {
	return &Rand{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
}

// Intn returns a uniform int in [0, n).
func (g *Rand) Intn(n int) int { return g.r.IntN(n) }

// Float64 returns a uniform float64 in [0, 1).
func (g *Rand) Float64() float64 { return g.r.Float64() }

// Perm returns a uniform permutation of 0 … n−1.
func (g *Rand) Perm(n int) []int { return g.r.Perm(n) }

// Uint32 returns 32 uniform random bits.
func (g *Rand) Uint32() uint32 { return g.r.Uint32() }

// Normal returns n samples of N(mean, std²), rounded to float32.
func (g *Rand) Normal(n int, mean, std float64) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(mean + std*g.r.NormFloat64())
	}
	return out
}

// Uniform returns n samples uniform in [lo, hi), rounded to float32.
func (g *Rand) Uniform(n int, lo, hi float64) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(lo + (hi-lo)*g.r.Float64())
	}
	return out
}

// Bits returns n float32 values with uniformly random bit patterns: every
// sign, exponent and mantissa is equally likely, so NaNs, infinities and
// subnormals all appear.
func (g *Rand) Bits(n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(g.r.Uint32())
	}
	return out
}

// Adversarial returns n finite float32 values drawn from the ranges that break
// careless numeric code: huge (up to MaxFloat32), tiny normal, subnormal,
// signed zeros and ordinary values, with random signs.
func (g *Rand) Adversarial(n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		var v float64
		switch g.r.IntN(5) {
		case 0: // huge: 1e30 .. MaxFloat32
			v = math.Exp(g.r.Float64()*(math.Log(math.MaxFloat32)-69.08) + 69.08)
		case 1: // tiny normal: 1e-37 .. 1e-30
			v = math.Exp(-g.r.Float64()*16.1 - 69.08)
		case 2: // subnormal
			v = float64(math.Float32frombits(1 + g.r.Uint32()%0x7fffff))
		case 3:
			v = 0
		default:
			v = g.r.NormFloat64()
		}
		if g.r.IntN(2) == 0 {
			v = -v
		}
		out[i] = float32(v)
	}
	return out
}

// Specials returns the float32 values every numeric test should try: signed
// zeros, infinities, a NaN, the extremes of the normal and subnormal ranges.
func Specials() []float32 {
	return []float32{
		0, float32(math.Copysign(0, -1)),
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		math.MaxFloat32, -math.MaxFloat32,
		math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
		math.Float32frombits(0x00800000), // smallest normal
		math.Float32frombits(0x007fffff), // largest subnormal
		1, -1,
	}
}
