package unit09

import (
	"encoding/binary"
	"math"

	"github.com/llmforge/forge/unit01"
)

// QuantizeRow sets dst to src quantized to type dt, in ggml's layout:
// len(src) elements, a whole number of blocks, into exactly
// RowBytes(len(src)) bytes. The 32-element types use ggml's reference
// algorithms (Q8_0: d = max|x|/127, rounded half away from zero; Q4_0 and
// Q5_0: d = max/−8 and max/−16 from the signed largest value; Q4_1: the
// block's min and range). The K-quants use a min–max rule whose error has a
// simple bound (see docs/unit09.md) rather than ggml's iterative search:
// their blocks are valid ggml and dequantize the same everywhere, but may
// hold other quants than llama-quantize would choose. Errors as
// DequantizeRow's.
func QuantizeRow(dt unit01.DType, dst []byte, src []float32) error {
	if err := checkRow(dt, len(src), len(dst)); err != nil {
		return err
	}
	bs, bb := dt.BlockSize(), dt.BlockBytes()
	for i := 0; i < len(src); i += bs {
		x := src[i : i+bs]
		b := dst[i/bs*bb : (i/bs+1)*bb]
		switch dt {
		case unit01.F32:
			binary.LittleEndian.PutUint32(b, math.Float32bits(x[0]))
		case unit01.F16:
			binary.LittleEndian.PutUint16(b, unit01.F32ToF16(x[0]))
		case unit01.BF16:
			binary.LittleEndian.PutUint16(b, unit01.F32ToBF16(x[0]))
		case unit01.Q8_0:
			quantQ8_0(b, x)
		case unit01.Q4_0:
			quantQ4_0(b, x)
		case unit01.Q4_1:
			quantQ4_1(b, x)
		case unit01.Q5_0:
			quantQ5_0(b, x)
		case unit01.Q4_K:
			quantK(b, x, 15)
		case unit01.Q5_K:
			quantK(b, x, 31)
		case unit01.Q6_K:
			quantQ6_K(b, x)
		case unit01.Q8_K:
			quantQ8_K(b, x)
		}
	}
	return nil
}

// putHalf stores f as an f16 at b[0:2].
func putHalf(b []byte, f float32) { binary.LittleEndian.PutUint16(b, unit01.F32ToF16(f)) }

// absMax returns the largest |x| and the element that has it, sign kept.
func absMax(x []float32) (amax, max float32) {
	for _, v := range x {
		if a := float32(math.Abs(float64(v))); a > amax {
			amax, max = a, v
		}
	}
	return amax, max
}

// inverse returns 1/d, or 0 for d = 0 (a block of zeros).
func inverse(d float32) float32 {
	if d == 0 {
		return 0
	}
	return 1 / d
}

// roundAway rounds half away from zero, as C's roundf.
func roundAway(x float32) int { return int(math.Round(float64(x))) }

// nearest rounds half to even, as ggml's nearest_int (used by the K-quants).
func nearest(x float32) int { return int(math.RoundToEven(float64(x))) }

func quantQ8_0(b []byte, x []float32) {
	amax, _ := absMax(x)
	d := amax / 127
	id := inverse(d)
	putHalf(b, d)
	for j, v := range x {
		b[2+j] = byte(int8(roundAway(v * id)))
	}
}

// quantQ4_0: the signed largest value maps to q = 0 (−8·d), so d = max/−8;
// q = min(15, ⌊x/d + 8.5⌋).
func quantQ4_0(b []byte, x []float32) {
	_, max := absMax(x)
	d := max / -8
	id := inverse(d)
	putHalf(b, d)
	for j := range 16 {
		// float32(x·id) rounds the product before the add: Go may fuse
		// a*b + c into one multiply-add (it does on arm64), which rounds
		// once and can move a quant across a boundary. The conversion
		// forbids that (the spec says so), so every platform writes the
		// same bytes. The quantizers below do the same.
		lo := min(15, int(float32(x[j]*id)+8.5))
		hi := min(15, int(float32(x[j+16]*id)+8.5))
		b[2+j] = byte(lo) | byte(hi)<<4
	}
}

// quantQ4_1: d = (max − min)/15, m = min; q = min(15, ⌊(x − min)/d + 0.5⌋).
func quantQ4_1(b []byte, x []float32) {
	lo, hi := x[0], x[0]
	for _, v := range x {
		lo, hi = min(lo, v), max(hi, v)
	}
	d := (hi - lo) / 15
	id := inverse(d)
	putHalf(b, d)
	putHalf(b[2:], lo)
	for j := range 16 {
		q0 := min(15, int(float32((x[j]-lo)*id)+0.5))
		q1 := min(15, int(float32((x[j+16]-lo)*id)+0.5))
		b[4+j] = byte(q0) | byte(q1)<<4
	}
}

// quantQ5_0: d = max/−16; q = min(31, ⌊x/d + 16.5⌋), the fifth bits in qh.
func quantQ5_0(b []byte, x []float32) {
	_, max := absMax(x)
	d := max / -16
	id := inverse(d)
	putHalf(b, d)
	var qh uint32
	for j := range 16 {
		q0 := min(31, int(float32(x[j]*id)+16.5))
		q1 := min(31, int(float32(x[j+16]*id)+16.5))
		b[6+j] = byte(q0&0xF) | byte(q1&0xF)<<4
		qh |= uint32(q0>>4)<<j | uint32(q1>>4)<<(j+16)
	}
	binary.LittleEndian.PutUint32(b[2:], qh)
}

// quantQ8_K: ggml's rule, iscale = −127/max from the signed largest value,
// q = min(127, nearest(iscale·x)), d = 1/iscale, and the sums of each 16.
func quantQ8_K(b []byte, x []float32) {
	amax, max := absMax(x)
	clear(b)
	if amax == 0 {
		return
	}
	iscale := -127 / max
	binary.LittleEndian.PutUint32(b, math.Float32bits(1/iscale))
	for g := range 16 {
		sum := 0
		for j := 16 * g; j < 16*g+16; j++ {
			q := min(127, nearest(iscale*x[j]))
			b[4+j] = byte(int8(q))
			sum += q
		}
		binary.LittleEndian.PutUint16(b[260+2*g:], uint16(int16(sum)))
	}
}

// halfAtLeast returns the f16 nearest f, moved up one step if rounding went
// below f, so that a scale derived from it never falls short.
func halfAtLeast(f float32) float32 {
	h := unit01.F32ToF16(f)
	if unit01.F16ToF32(h) < f {
		h++ // positive halves order like their bits
	}
	return unit01.F16ToF32(h)
}

// quantK quantizes a Q4_K (levels 15) or Q5_K (levels 31) super-block with
// a min–max rule. Each sub-block s of 32 spans [lo_s, hi_s], lo_s ≤ 0 (a
// min above zero is taken as zero, as in ggml), and wants the step
// (hi_s − lo_s)/levels and the offset −lo_s. The steps are coded as
// d·sc_s and the offsets as dmin·m_s with 6-bit sc_s and m_s, d and dmin
// f16: sc_s rounds up, so a sub-block's range always fits its 16 (or 32)
// levels; m_s rounds to nearest.
func quantK(b []byte, x []float32, levels int) {
	var step, off [8]float32
	var maxStep, maxOff float32
	for s := range 8 {
		lo, hi := float32(0), x[32*s]
		for _, v := range x[32*s : 32*s+32] {
			lo, hi = min(lo, v), max(hi, v)
		}
		step[s], off[s] = (hi-lo)/float32(levels), -lo
		maxStep, maxOff = max(maxStep, step[s]), max(maxOff, off[s])
	}
	d, dmin := halfAtLeast(maxStep/63), halfAtLeast(maxOff/63)
	clear(b[:16])
	putHalf(b, d)
	putHalf(b[2:], dmin)
	var sc, m [8]int
	for s := range 8 {
		if d > 0 {
			sc[s] = min(63, int(math.Ceil(float64(step[s]/d))))
		}
		if dmin > 0 {
			m[s] = min(63, nearest(off[s]/dmin))
		}
		packScaleMin(b[4:16], s, sc[s], m[s])
	}
	qs := b[len(b)-128:]
	var qh []byte
	if levels == 31 {
		qh = b[16:48]
		clear(qh)
	}
	for c := range 4 {
		for half := range 2 {
			s := 2*c + half
			ds, ms := float32(d*float32(sc[s])), float32(dmin*float32(m[s]))
			ids := inverse(ds)
			for l := range 32 {
				q := max(0, min(levels, nearest((x[32*s+l]+ms)*ids)))
				if half == 0 {
					qs[32*c+l] = byte(q & 0xF)
				} else {
					qs[32*c+l] |= byte(q&0xF) << 4
				}
				if qh != nil {
					qh[l] |= byte(q>>4) << s
				}
			}
		}
	}
}

// packScaleMin stores sub-block s's 6-bit scale and min in the 12 bytes
// scaleMin reads them from.
func packScaleMin(scales []byte, s, sc, m int) {
	if s < 4 {
		scales[s] |= byte(sc)
		scales[s+4] |= byte(m)
		return
	}
	scales[s+4] |= byte(sc&0xF) | byte(m&0xF)<<4
	scales[s-4] |= byte(sc>>4) << 6
	scales[s] |= byte(m>>4) << 6
}

// quantQ6_K quantizes a super-block: each sub-block of 16 wants the step
// max|x|/31 (so its values fit q − 32 in −31…31); the steps are coded as
// d·scale with int8 scales 0…127 (rounded up) and an f16 d.
func quantQ6_K(b []byte, x []float32) {
	var step [16]float32
	var maxStep float32
	for s := range 16 {
		amax, _ := absMax(x[16*s : 16*s+16])
		step[s] = amax / 31
		maxStep = max(maxStep, step[s])
	}
	clear(b)
	d := halfAtLeast(maxStep / 127)
	putHalf(b[208:], d)
	var sc [16]int
	for s := range 16 {
		if d > 0 {
			sc[s] = min(127, int(math.Ceil(float64(step[s]/d))))
		}
		b[192+s] = byte(int8(sc[s]))
	}
	for n := range 2 {
		ql, qh := b[64*n:64*n+64], b[128+32*n:128+32*n+32]
		for l := range 32 {
			for k := range 4 { // element l + 32k of this half
				i := 128*n + l + 32*k
				s := i / 16
				q := 32 + max(-32, min(31, nearest(x[i]*inverse(d*float32(sc[s])))))
				switch k {
				case 0:
					ql[l] |= byte(q & 0xF)
				case 1:
					ql[l+32] |= byte(q & 0xF)
				case 2:
					ql[l] |= byte(q&0xF) << 4
				case 3:
					ql[l+32] |= byte(q&0xF) << 4
				}
				qh[l] |= byte(q>>4) << (2 * k)
			}
		}
	}
}
