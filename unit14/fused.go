package unit14

// AddNormRow is the seam between two halves of a transformer block in one
// pass: it adds y to the residual row x in place, x += y, and sets n to
// RMSNorm of the new x times w, n = x / sqrt(mean(x²) + eps) · w. Done
// apart, the addition reads x and y and writes x, then the norm reads x
// twice more; here the sum of squares is taken while x is written, so x
// is read once less. n must not overlap x or y. It panics (unit00.Check)
// if the lengths differ or x is empty.
func AddNormRow(n, x, y, w []float32, eps float32) {
	panic("TODO(14.2): write AddNormRow, see docs/unit14.md")
}

// SwiGLUQ8_0 sets dst to SiLU(gate)·up quantized to Q8_0 the way
// activations are (unit09): for each block of 32, d = max|h|/127 stored
// as an F16, and each quant the nearest integer to h·127/max|h|, ties to
// even; a block of zeros has d = 0 and zero quants. The product is never
// written as float32: the feed-forward's hidden row goes straight into the
// form the down projection's integer kernel reads, one pass instead of
// three (SwiGLU writes h, the quantizer reads it twice). It panics
// (unit00.Check) unless gate and up have one length, a multiple of 32,
// and dst holds its Q8_0 blocks (34 bytes each).
func SwiGLUQ8_0(dst []byte, gate, up []float32) {
	panic("TODO(14.2): write SwiGLUQ8_0, see docs/unit14.md")
}
