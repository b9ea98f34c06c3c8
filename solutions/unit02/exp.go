package unit02

import "math"

// expf returns e^x in float32 to within 1 ulp (0.96 at worst, measured),
// without math.Exp's float64 work. It is the scalar twin of the vector exp in the assembly
// kernels and follows the same steps:
//
//  1. n = round(x / ln 2), so that e^x = 2^n · e^r with r = x − n·ln 2 in
//     [−ln2/2, ln2/2];
//  2. r is computed as x − n·ln2hi − n·ln2lo, ln 2 split in two so that
//     n·ln2hi is exact and r keeps its precision even for |x| near 88;
//  3. e^r = 1 + r + r²·P(r), P a degree-5 polynomial fitted on that interval
//     (Cephes' expf coefficients);
//  4. 2^n is put straight into the exponent bits of the result.
//
// Inputs above 88.72 give +Inf, below −87.34 give 0 (the result would be
// below the smallest normal float32), NaN gives NaN.
func expf(x float32) float32 {
	switch {
	case x > expHi:
		return float32(math.Inf(1))
	case x < expLo:
		return 0
	case x != x:
		return x
	}
	n := roundEven(x * log2e)
	r := x - n*ln2Hi
	r -= n * ln2Lo
	p := float32(expP0)
	p = p*r + expP1
	p = p*r + expP2
	p = p*r + expP3
	p = p*r + expP4
	p = p*r + expP5
	e := p*r*r + r + 1
	return math.Float32frombits(math.Float32bits(e) + uint32(int32(n))<<23)
}

// roundEven rounds to the nearest integer, ties to even, by the classic
// trick of adding and subtracting 1.5·2^23: for |x| < 2^22 the sum has no
// fraction bits left, so the addition itself does the rounding.
func roundEven(x float32) float32 {
	const magic = 12582912 // 1.5 · 2^23
	return (x + magic) - magic
}

const (
	expHi = 88.72283   // ln(MaxFloat32): beyond it e^x overflows
	expLo = -87.33654  // ln(smallest normal float32)
	log2e = 1.44269504 // 1/ln 2
	ln2Hi = 0.693359375
	ln2Lo = -2.12194440e-4

	expP0 = 1.9875691500e-4
	expP1 = 1.3981999507e-3
	expP2 = 8.3334519073e-3
	expP3 = 4.1665795894e-2
	expP4 = 1.6666665459e-1
	expP5 = 5.0000001201e-1
)
