package unit14

import (
	"encoding/binary"
	"math"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
)

// AddNormRow is the seam between two halves of a transformer block in one
// pass: it adds y to the residual row x in place, x += y, and sets n to
// RMSNorm of the new x times w, n = x / sqrt(mean(x²) + eps) · w. Done
// apart, the addition reads x and y and writes x, then the norm reads x
// twice more; here the sum of squares is taken while x is written, so x
// is read once less. n must not overlap x or y. It panics (unit00.Check)
// if the lengths differ or x is empty.
func AddNormRow(n, x, y, w []float32, eps float32) {
	unit00.Check(len(x) > 0 && len(y) == len(x) && len(n) == len(x) && len(w) == len(x), "AddNormRow: n, x, y and w must have one non-zero length")
	var ss float64
	for i := range x {
		v := x[i] + y[i]
		x[i] = v
		ss += float64(v) * float64(v)
	}
	scale := float32(1 / math.Sqrt(ss/float64(len(x))+float64(eps)))
	for i, v := range x {
		n[i] = v * scale * w[i]
	}
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
	unit00.Check(len(up) == len(gate) && len(gate)%32 == 0 && len(dst) == len(gate)/32*34, "SwiGLUQ8_0: gate and up must be one multiple of 32 long, and dst hold its Q8_0 blocks")
	var h [32]float32
	for b := 0; b < len(gate); b += 32 {
		amax := float32(0)
		for j := range h {
			g := gate[b+j]
			h[j] = g / (1 + float32(math.Exp(float64(-g)))) * up[b+j]
			amax = max(amax, abs(h[j]))
		}
		blk := dst[b/32*34 : b/32*34+34]
		binary.LittleEndian.PutUint16(blk, unit01.F32ToF16(amax/127))
		var id float32
		if amax != 0 {
			id = 127 / amax
		}
		for j, v := range h {
			blk[2+j] = byte(int8(math.RoundToEven(float64(v * id))))
		}
	}
}

func abs(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }
