package unit09

import (
	"encoding/binary"
	"math"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
)

// VecDotType is the type a row of activations is quantized to, once, before
// its dot products with weights of type dt, as ggml does: Q8_0 for Q4_0,
// Q4_1, Q5_0 and Q8_0 (one activation block per weight block); Q8_K for
// the K-quants (whose super-blocks of 256 it matches, with the sums of
// each 16 quants that the mins need); the weights' own type for F16 and
// BF16 (activations rounded to half precision, as llama.cpp's CPU code
// does); F32 for F32.
func VecDotType(dt unit01.DType) unit01.DType {
	switch dt {
	case unit01.Q4_0, unit01.Q4_1, unit01.Q5_0, unit01.Q8_0:
		return unit01.Q8_0
	case unit01.Q4_K, unit01.Q5_K, unit01.Q6_K:
		return unit01.Q8_K
	case unit01.F16, unit01.BF16:
		return dt
	}
	return unit01.F32
}

// Dot returns Σ w[i]·a[i] over n elements: w is a row of weights of type
// dt, a the activations quantized to VecDotType(dt). The quantized types
// multiply their integer quants in integers, block by block, and apply the
// scales once per block; the weights are never dequantized. It panics
// (unit00.Check) if w or a is not n elements long, or dt is not Supported.
func Dot(dt unit01.DType, w, a []byte, n int) float32 {
	unit00.Check(Supported(dt) && dt != unit01.Q8_K, "Dot: not a weight type this package multiplies")
	wb, err1 := dt.RowBytes(n)
	ab, err2 := VecDotType(dt).RowBytes(n)
	unit00.Check(err1 == nil && err2 == nil && len(w) == wb && len(a) == ab, "Dot: w and a must hold n elements of their types")
	return dot(dt, w, a)
}

// dot is Dot without the checks, for callers that made them once.
func dot(dt unit01.DType, w, a []byte) float32 {
	switch dt {
	case unit01.Q4_0:
		return dotQ4_0(w, a)
	case unit01.Q8_0:
		return dotQ8_0(w, a)
	case unit01.Q4_1:
		return dotQ4_1(w, a)
	case unit01.Q5_0:
		return dotQ5_0(w, a)
	case unit01.Q4_K:
		return dotQ4_K(w, a)
	case unit01.Q5_K:
		return dotQ5_K(w, a)
	case unit01.Q6_K:
		return dotQ6_K(w, a)
	}
	return dotFloat(dt, w, a)
}

// dotQ8_0Go: Σ over blocks of d_w·d_a·Σ q_w·q_a.
func dotQ8_0Go(w, a []byte) float32 {
	var sum float32
	for b := 0; b < len(w); b += 34 {
		isum := 0
		for j := range 32 {
			isum += int(int8(w[b+2+j])) * int(int8(a[b+2+j]))
		}
		sum += half(w[b:]) * half(a[b:]) * float32(isum)
	}
	return sum
}

// dotQ4_0Go: Σ over blocks of d_w·d_a·Σ (q_w − 8)·q_a.
func dotQ4_0Go(w, a []byte) float32 {
	var sum float32
	for b, ab := 0, 0; b < len(w); b, ab = b+18, ab+34 {
		isum := 0
		for j, q := range w[b+2 : b+18] {
			isum += (int(q&0xF)-8)*int(int8(a[ab+2+j])) + (int(q>>4)-8)*int(int8(a[ab+18+j]))
		}
		sum += half(w[b:]) * half(a[ab:]) * float32(isum)
	}
	return sum
}

// dotQ4_1Go: x = d·q + m, so each block gives d_w·d_a·Σ q_w·q_a plus
// m_w·d_a·Σ q_a.
func dotQ4_1Go(w, a []byte) float32 {
	var sum float32
	for b, ab := 0, 0; b < len(w); b, ab = b+20, ab+34 {
		isum, asum := 0, 0
		for j, q := range w[b+4 : b+20] {
			a0, a1 := int(int8(a[ab+2+j])), int(int8(a[ab+18+j]))
			isum += int(q&0xF)*a0 + int(q>>4)*a1
			asum += a0 + a1
		}
		da := half(a[ab:])
		sum += half(w[b:])*da*float32(isum) + half(w[b+2:])*da*float32(asum)
	}
	return sum
}

// dotQ5_0Go: Σ over blocks of d_w·d_a·Σ (q_w − 16)·q_a.
func dotQ5_0Go(w, a []byte) float32 {
	var sum float32
	for b, ab := 0, 0; b < len(w); b, ab = b+22, ab+34 {
		qh := binary.LittleEndian.Uint32(w[b+2:])
		isum := 0
		for j, q := range w[b+6 : b+22] {
			lo := int(q&0xF) | int(qh>>j&1)<<4
			hi := int(q>>4) | int(qh>>(j+16)&1)<<4
			isum += (lo-16)*int(int8(a[ab+2+j])) + (hi-16)*int(int8(a[ab+18+j]))
		}
		sum += half(w[b:]) * half(a[ab:]) * float32(isum)
	}
	return sum
}

// q8K returns a Q8_K block's scale, quants and sums of each 16 quants.
func q8K(a []byte) (d float32, qs []byte, bsum func(g int) int) {
	d = math.Float32frombits(binary.LittleEndian.Uint32(a))
	return d, a[4:260], func(g int) int { return int(int16(binary.LittleEndian.Uint16(a[260+2*g:]))) }
}

// dotQ4_KGo: per super-block, d_a·(d·Σ_s sc_s·Σ q_w·q_a − dmin·Σ_s m_s·Σ q_a),
// the activation sums of each sub-block read from Q8_K's bsums.
func dotQ4_KGo(w, a []byte) float32 {
	var sum float32
	for b, ab := 0, 0; b < len(w); b, ab = b+144, ab+292 {
		da, aq, bsum := q8K(a[ab:])
		scales, qs := w[b+4:b+16], w[b+16:b+144]
		isum, msum := 0, 0
		for c := range 4 {
			for h := range 2 {
				s := 2*c + h
				sc, m := scaleMin(scales, s)
				sub := 0
				for l, q := range qs[32*c : 32*c+32] {
					sub += int(q>>(4*h)&0xF) * int(int8(aq[32*s+l]))
				}
				isum += sc * sub
				msum += m * (bsum(2*s) + bsum(2*s+1))
			}
		}
		sum += da * (half(w[b:])*float32(isum) - half(w[b+2:])*float32(msum))
	}
	return sum
}

// dotQ5_KGo: Q4_K's rule with five-bit quants.
func dotQ5_KGo(w, a []byte) float32 {
	var sum float32
	for b, ab := 0, 0; b < len(w); b, ab = b+176, ab+292 {
		da, aq, bsum := q8K(a[ab:])
		scales, qh, qs := w[b+4:b+16], w[b+16:b+48], w[b+48:b+176]
		isum, msum := 0, 0
		for c := range 4 {
			for h := range 2 {
				s := 2*c + h
				sc, m := scaleMin(scales, s)
				sub := 0
				for l, q := range qs[32*c : 32*c+32] {
					v := int(q>>(4*h)&0xF) | int(qh[l]>>s&1)<<4
					sub += v * int(int8(aq[32*s+l]))
				}
				isum += sc * sub
				msum += m * (bsum(2*s) + bsum(2*s+1))
			}
		}
		sum += da * (half(w[b:])*float32(isum) - half(w[b+2:])*float32(msum))
	}
	return sum
}

// dotQ6_KGo: per super-block, d·d_a·Σ_s scale_s·Σ (q_w − 32)·q_a over the
// sixteen sub-blocks of 16.
func dotQ6_KGo(w, a []byte) float32 {
	var sum float32
	for b, ab := 0, 0; b < len(w); b, ab = b+210, ab+292 {
		da, aq, _ := q8K(a[ab:])
		isum := 0
		for n := range 2 {
			ql, qh, sc := w[b+64*n:b+64*n+64], w[b+128+32*n:b+160+32*n], w[b+192+8*n:b+200+8*n]
			var sub [8]int // per sub-block of this half
			for l := range 32 {
				q1 := int(ql[l]&0xF) | int(qh[l]&3)<<4
				q2 := int(ql[l+32]&0xF) | int(qh[l]>>2&3)<<4
				q3 := int(ql[l]>>4) | int(qh[l]>>4&3)<<4
				q4 := int(ql[l+32]>>4) | int(qh[l]>>6&3)<<4
				i := 128*n + l
				is := l / 16
				sub[is] += (q1 - 32) * int(int8(aq[i]))
				sub[is+2] += (q2 - 32) * int(int8(aq[i+32]))
				sub[is+4] += (q3 - 32) * int(int8(aq[i+64]))
				sub[is+6] += (q4 - 32) * int(int8(aq[i+96]))
			}
			for s, v := range sub {
				isum += int(int8(sc[s])) * v
			}
		}
		sum += half(w[b+208:]) * da * float32(isum)
	}
	return sum
}

// dotFloat: F32 weights against F32 activations, or F16 (BF16) weights
// against F16 (BF16) activations, the products summed in float32.
func dotFloat(dt unit01.DType, w, a []byte) float32 {
	var sum float32
	switch dt {
	case unit01.F32:
		for i := 0; i < len(w); i += 4 {
			sum += math.Float32frombits(binary.LittleEndian.Uint32(w[i:])) * math.Float32frombits(binary.LittleEndian.Uint32(a[i:]))
		}
	case unit01.F16:
		for i := 0; i < len(w); i += 2 {
			sum += unit01.F16ToF32(binary.LittleEndian.Uint16(w[i:])) * unit01.F16ToF32(binary.LittleEndian.Uint16(a[i:]))
		}
	default:
		for i := 0; i < len(w); i += 2 {
			sum += unit01.BF16ToF32(binary.LittleEndian.Uint16(w[i:])) * unit01.BF16ToF32(binary.LittleEndian.Uint16(a[i:]))
		}
	}
	return sum
}
