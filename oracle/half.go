package oracle

import "math"

// The half-precision references below work on values, not on bit tricks: a
// value is decoded from its fields with math.Ldexp, and rounding is done by
// scaling to the target's quantum and calling math.RoundToEven in float64,
// which is exact for every float32 input. They are an independent check of
// bit-manipulating conversions.

// F16Value returns the exact value of IEEE binary16 bits h (NaN for NaNs).
func F16Value(h uint16) float64 {
	return decode(uint64(h>>15), int(h>>10&0x1f), uint64(h&0x3ff), 5, 10)
}

// BF16Value returns the exact value of bfloat16 bits b (NaN for NaNs).
func BF16Value(b uint16) float64 {
	return decode(uint64(b>>15), int(b>>7&0xff), uint64(b&0x7f), 8, 7)
}

// decode evaluates an IEEE-style float from its sign, biased exponent and
// mantissa fields.
func decode(sign uint64, exp int, mant uint64, expBits, mantBits int) float64 {
	bias := 1<<(expBits-1) - 1
	var v float64
	switch {
	case exp == 1<<expBits-1 && mant != 0:
		return math.NaN()
	case exp == 1<<expBits-1:
		v = math.Inf(1)
	case exp == 0: // subnormal: 0.mant × 2^(1−bias)
		v = math.Ldexp(float64(mant), 1-bias-mantBits)
	default:
		v = math.Ldexp(float64(mant|1<<mantBits), exp-bias-mantBits)
	}
	if sign == 1 {
		v = -v
	}
	return v
}

// F16FromFloat32 returns the binary16 nearest to f, ties to even; values too
// large for binary16 become infinities. A NaN keeps its sign and the top 10
// bits of its payload, with the quiet bit set (what x86 F16C and ARM do).
func F16FromFloat32(f float32) uint16 {
	bits := math.Float32bits(f)
	sign := uint16(bits>>31) << 15
	if f != f {
		return sign | 0x7c00 | 0x200 | uint16(bits>>13&0x3ff)
	}
	return sign | encode(math.Abs(float64(f)), 5, 10)
}

// BF16FromFloat32 returns the bfloat16 nearest to f, ties to even. A NaN keeps
// its sign and the top 7 bits of its payload, with the quiet bit set, so it
// stays a NaN even when those bits are zero.
func BF16FromFloat32(f float32) uint16 {
	bits := math.Float32bits(f)
	sign := uint16(bits>>31) << 15
	if f != f {
		return sign | 0x7f80 | 0x40 | uint16(bits>>16&0x7f)
	}
	return sign | encode(math.Abs(float64(f)), 8, 7)
}

// encode returns the bits (without sign) of the format value nearest to a ≥ 0.
func encode(a float64, expBits, mantBits int) uint16 {
	bias := 1<<(expBits-1) - 1
	infBits := uint16(1<<expBits-1) << mantBits
	if math.IsInf(a, 1) {
		return infBits
	}
	minExp := 1 - bias // exponent of the smallest normal
	e := minExp
	if a >= math.Ldexp(1, minExp) {
		_, fe := math.Frexp(a) // a = frac × 2^fe, frac in [0.5, 1)
		e = fe - 1
	}
	quantum := math.Ldexp(1, e-mantBits)
	q := math.RoundToEven(a / quantum)  // exact: a/quantum has at most 24+1 significant bits
	if q >= math.Ldexp(1, mantBits+1) { // rounding carried into the next binade
		q /= 2
		e++
	}
	if e > bias { // beyond the largest finite value
		return infBits
	}
	if q < math.Ldexp(1, mantBits) { // subnormal (or zero): exponent field 0
		return uint16(q)
	}
	return uint16(e+bias)<<mantBits | uint16(q)&(1<<mantBits-1)
}
