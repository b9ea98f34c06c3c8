package unit01

import "math"

// IEEE binary16 ("half", F16): 1 sign bit, 5 exponent bits (bias 15), 10
// mantissa bits. bfloat16 (BF16): the top 16 bits of a float32, 8 exponent
// bits and 7 mantissa bits. Both are stored as uint16 bits.

// F16ToF32 returns the value of half-precision bits h. Every half is exactly
// representable as a float32, so this is exact; a NaN keeps its payload.
func F16ToF32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f: // infinity or NaN
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp == 0 && mant == 0: // signed zero
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: shift the mantissa up until it has a leading 1
		e := uint32(127 - 15 + 1)
		for mant&0x400 == 0 {
			mant <<= 1
			e--
		}
		return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// F32ToF16 returns the half nearest to f, ties to even. Values beyond the
// largest half (65504, or from 65520 up once rounded) become infinities;
// values below half the smallest subnormal become signed zeros. A NaN keeps
// its sign and the top 10 bits of its payload, with the quiet bit set (as
// x86's F16C and ARM do), so it stays a NaN.
func F32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp == 0xff {
		if mant == 0 {
			return sign | 0x7c00
		}
		return sign | 0x7c00 | 0x200 | uint16(mant>>13)
	}
	e := exp - 127 + 15 // the exponent rebiased for half
	switch {
	case e >= 0x1f:
		return sign | 0x7c00
	case e < -10: // below half of the smallest subnormal: zero
		return sign
	case e <= 0: // a half subnormal: m·2^-24 with m = significand >> (14 − e)
		return sign | uint16(roundShift(mant|0x800000, uint(14-e)))
	}
	// Normal: keep the top 10 mantissa bits and round on the 13 dropped ones.
	// A round-up that overflows the mantissa carries into the exponent, which
	// is exactly right, up to infinity.
	return sign | uint16(roundShift(uint32(e)<<23|mant, 13))
}

// roundShift returns x >> s rounded to nearest, ties to even.
func roundShift(x uint32, s uint) uint32 {
	q := x >> s
	rem := x & (1<<s - 1)
	half := uint32(1) << (s - 1)
	if rem > half || rem == half && q&1 == 1 {
		q++
	}
	return q
}

// BF16ToF32 returns the value of bfloat16 bits b: exact, as bfloat16 is the
// top half of a float32.
func BF16ToF32(b uint16) float32 {
	return math.Float32frombits(uint32(b) << 16)
}

// F32ToBF16 returns the bfloat16 nearest to f, ties to even. A NaN keeps its
// sign and the top 7 bits of its payload with the quiet bit set, so it stays
// a NaN even when those 7 bits are zero (plain truncation would turn such a
// NaN into an infinity).
func F32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7fffffff > 0x7f800000 {
		return uint16(b>>16) | 0x40
	}
	return uint16(roundShift(b, 16))
}
