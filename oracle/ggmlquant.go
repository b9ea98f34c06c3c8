package oracle

import (
	"encoding/binary"
	"fmt"
	"math"
)

// GGMLQuantRow returns the bytes ggml's reference quantizers
// (quantize_row_*_ref in ggml-quants.c) write for the row x, for the types
// whose rule docs/unit09.md (9.2) says a quantizer must follow byte for
// byte: Q8_0, Q4_0, Q4_1, Q5_0 and Q8_K, and the plain F32, F16 and BF16.
// It panics on any other type, or on a row that is not whole blocks.
//
// Unlike the rest of this package it computes in float32, on purpose: the
// bytes are defined by C's float32 arithmetic (a scale divided in float32, a
// product rounded to float32 before it is rounded to an integer), and a
// float64 evaluation would land on the other side of a rounding boundary
// now and then. Every product is converted to float32 before its next use,
// so Go cannot fuse it into a multiply-add. The roundings are written
// independently of the math package's: C's roundf from a floor, ggml's
// nearest_int with its own trick (adding 1.5·2²³ in float32), the f16 and
// bf16 scales with F16FromFloat32 and BF16FromFloat32 of this package.
func GGMLQuantRow(typ int, x []float32) []byte {
	n := BlockElems(typ)
	if len(x)%n != 0 {
		panic(fmt.Sprintf("oracle: GGMLQuantRow: %d elements are not whole blocks of %d", len(x), n))
	}
	bb := BlockBytes(typ)
	out := make([]byte, len(x)/n*bb)
	for i := 0; i < len(x); i += n {
		b, blk := out[i/n*bb:(i/n+1)*bb], x[i:i+n]
		switch typ {
		case typeF32:
			binary.LittleEndian.PutUint32(b, math.Float32bits(blk[0]))
		case typeF16:
			binary.LittleEndian.PutUint16(b, F16FromFloat32(blk[0]))
		case typeBF16:
			binary.LittleEndian.PutUint16(b, BF16FromFloat32(blk[0]))
		case typeQ8_0:
			ggmlQ8_0(b, blk)
		case typeQ4_0:
			ggmlQ4_0(b, blk)
		case typeQ4_1:
			ggmlQ4_1(b, blk)
		case typeQ5_0:
			ggmlQ5_0(b, blk)
		case typeQ8_K:
			ggmlQ8_K(b, blk)
		default:
			panic(fmt.Sprintf("oracle: GGMLQuantRow: type %d has no byte-exact reference rule here", typ))
		}
	}
	return out
}

// cRoundf is C's roundf: the nearest integer, halfway cases away from zero.
func cRoundf(v float32) int {
	if v < 0 {
		return -cRoundf(-v)
	}
	f := math.Floor(float64(v))
	if float64(v)-f >= 0.5 {
		f++
	}
	return int(f)
}

// nearestInt is ggml's nearest_int: adding 1.5·2²³ in float32 leaves the
// integer nearest v (ties to even, by the float32 addition's own rounding)
// in the low mantissa bits. Valid for |v| < 2²².
func nearestInt(v float32) int {
	val := v + 12582912
	return int(math.Float32bits(val)&0x007fffff) - 0x00400000
}

// signedMax returns ggml's "max": the first element of largest magnitude,
// with its sign (the C loops replace it only on a strictly larger |v|).
func signedMax(x []float32) (amax, max float32) {
	for _, v := range x {
		if a := float32(math.Abs(float64(v))); amax < a {
			amax, max = a, v
		}
	}
	return amax, max
}

func putF16(b []byte, f float32) { binary.LittleEndian.PutUint16(b, F16FromFloat32(f)) }

// inv is ggml's `d ? 1.0f/d : 0.0f`.
func inv(d float32) float32 {
	if d == 0 {
		return 0
	}
	return 1 / d
}

// quantize_row_q8_0_ref: d = amax/127, q = roundf(x·(1/d)).
func ggmlQ8_0(b []byte, x []float32) {
	amax, _ := signedMax(x)
	d := amax / 127
	id := inv(d)
	putF16(b, d)
	for j, v := range x {
		b[2+j] = byte(int8(cRoundf(float32(v * id))))
	}
}

// quantize_row_q4_0_ref: d = max/−8, q = MIN(15, (int8_t)(x·id + 8.5f)).
func ggmlQ4_0(b []byte, x []float32) {
	_, max := signedMax(x)
	d := max / -8
	id := inv(d)
	putF16(b, d)
	for j := range 16 {
		x0, x1 := float32(x[j]*id), float32(x[j+16]*id)
		q0, q1 := min(15, int(int8(x0+8.5))), min(15, int(int8(x1+8.5)))
		b[2+j] = byte(q0) | byte(q1)<<4
	}
}

// quantize_row_q4_1_ref: d = (max − min)/15, m = min,
// q = MIN(15, (int8_t)((x − min)·id + 0.5f)).
func ggmlQ4_1(b []byte, x []float32) {
	lo, hi := float32(math.MaxFloat32), float32(-math.MaxFloat32)
	for _, v := range x {
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	d := (hi - lo) / 15
	id := inv(d)
	putF16(b, d)
	putF16(b[2:], lo)
	for j := range 16 {
		x0, x1 := float32((x[j]-lo)*id), float32((x[j+16]-lo)*id)
		q0, q1 := min(15, int(int8(x0+0.5))), min(15, int(int8(x1+0.5)))
		b[4+j] = byte(q0) | byte(q1)<<4
	}
}

// quantize_row_q5_0_ref: d = max/−16, q = MIN(31, (int8_t)(x·id + 16.5f)),
// the low nibbles in qs as Q4_0's and bit 4 of element j at bit j of qh.
func ggmlQ5_0(b []byte, x []float32) {
	_, max := signedMax(x)
	d := max / -16
	id := inv(d)
	putF16(b, d)
	var qh uint32
	for j := range 16 {
		x0, x1 := float32(x[j]*id), float32(x[j+16]*id)
		q0, q1 := min(31, int(int8(x0+16.5))), min(31, int(int8(x1+16.5)))
		b[6+j] = byte(q0&0xF) | byte(q1&0xF)<<4
		qh |= uint32(q0&0x10)>>4<<j | uint32(q1&0x10)>>4<<(j+16)
	}
	binary.LittleEndian.PutUint32(b[2:], qh)
}

// quantize_row_q8_K_ref: a block of zeros is all zero bytes; otherwise
// iscale = −127/max, q = MIN(127, nearest_int(iscale·x)), d = 1/iscale as a
// float32, bsums[g] the sum of quants 16g…16g+15.
func ggmlQ8_K(b []byte, x []float32) {
	clear(b)
	amax, max := signedMax(x)
	if amax == 0 {
		return
	}
	iscale := -127 / max
	for j, v := range x {
		b[4+j] = byte(int8(min(127, nearestInt(float32(iscale*v)))))
	}
	for g := range 16 {
		sum := 0
		for _, q := range b[4+16*g : 20+16*g] {
			sum += int(int8(q))
		}
		binary.LittleEndian.PutUint16(b[260+2*g:], uint16(int16(sum)))
	}
	binary.LittleEndian.PutUint32(b, math.Float32bits(1/iscale))
}
