package unit01

// IEEE binary16 ("half", F16): 1 sign bit, 5 exponent bits (bias 15), 10
// mantissa bits. bfloat16 (BF16): the top 16 bits of a float32, 8 exponent
// bits and 7 mantissa bits. Both are stored as uint16 bits.

// F16ToF32 returns the value of half-precision bits h. Every half is exactly
// representable as a float32, so this is exact; a NaN keeps its payload.
func F16ToF32(h uint16) float32 {
	panic("TODO(1.4): write F16ToF32, see docs/unit01.md")
}

// F32ToF16 returns the half nearest to f, ties to even. Values beyond the
// largest half (65504, or from 65520 up once rounded) become infinities;
// values below half the smallest subnormal become signed zeros. A NaN keeps
// its sign and the top 10 bits of its payload, with the quiet bit set (as
// x86's F16C and ARM do), so it stays a NaN.
func F32ToF16(f float32) uint16 {
	panic("TODO(1.4): write F32ToF16, see docs/unit01.md")
}

// BF16ToF32 returns the value of bfloat16 bits b: exact, as bfloat16 is the
// top half of a float32.
func BF16ToF32(b uint16) float32 {
	panic("TODO(1.4): write BF16ToF32, see docs/unit01.md")
}

// F32ToBF16 returns the bfloat16 nearest to f, ties to even. A NaN keeps its
// sign and the top 7 bits of its payload with the quiet bit set, so it stays
// a NaN even when those 7 bits are zero (plain truncation would turn such a
// NaN into an infinity).
func F32ToBF16(f float32) uint16 {
	panic("TODO(1.4): write F32ToBF16, see docs/unit01.md")
}
