package unit09

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
)

// DequantizeRow sets dst to the values of src, a row of len(dst) elements
// of type dt laid out exactly as ggml stores them (and a GGUF file holds
// them): for a block type, len(dst)/BlockSize blocks of BlockBytes each.
// It knows F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q8_0, Q4_K, Q5_K, Q6_K and
// Q8_K. An unknown type is an error wrapping unit00.ErrUnsupported; a
// length that is not a whole number of blocks, or a src of the wrong size,
// one wrapping unit00.ErrInvalid.
func DequantizeRow(dt unit01.DType, dst []float32, src []byte) error {
	if err := checkRow(dt, len(dst), len(src)); err != nil {
		return err
	}
	bs, bb := dt.BlockSize(), dt.BlockBytes()
	for i := 0; i < len(dst); i += bs {
		b := src[i/bs*bb : (i/bs+1)*bb]
		out := dst[i : i+bs]
		switch dt {
		case unit01.F32:
			out[0] = math.Float32frombits(binary.LittleEndian.Uint32(b))
		case unit01.F16:
			out[0] = unit01.F16ToF32(binary.LittleEndian.Uint16(b))
		case unit01.BF16:
			out[0] = unit01.BF16ToF32(binary.LittleEndian.Uint16(b))
		case unit01.Q8_0:
			dequantQ8_0(out, b)
		case unit01.Q4_0:
			dequantQ4_0(out, b)
		case unit01.Q4_1:
			dequantQ4_1(out, b)
		case unit01.Q5_0:
			dequantQ5_0(out, b)
		case unit01.Q4_K:
			dequantQ4_K(out, b)
		case unit01.Q5_K:
			dequantQ5_K(out, b)
		case unit01.Q6_K:
			dequantQ6_K(out, b)
		case unit01.Q8_K:
			dequantQ8_K(out, b)
		}
	}
	return nil
}

// Supported reports whether this package reads and writes type dt.
func Supported(dt unit01.DType) bool {
	switch dt {
	case unit01.F32, unit01.F16, unit01.BF16, unit01.Q8_0, unit01.Q4_0, unit01.Q4_1,
		unit01.Q5_0, unit01.Q4_K, unit01.Q5_K, unit01.Q6_K, unit01.Q8_K:
		return true
	}
	return false
}

// checkRow checks that n elements of dt fill exactly bytes bytes.
func checkRow(dt unit01.DType, n, bytes int) error {
	if !Supported(dt) {
		return fmt.Errorf("quant: type %v: %w", dt, unit00.ErrUnsupported)
	}
	want, err := dt.RowBytes(n)
	if err != nil {
		return fmt.Errorf("quant: %d elements of %v: %w", n, dt, err)
	}
	if bytes != want {
		return fmt.Errorf("quant: %d elements of %v take %d bytes, not %d: %w", n, dt, want, bytes, unit00.ErrInvalid)
	}
	return nil
}

// half reads the f16 at b[0:2].
func half(b []byte) float32 { return unit01.F16ToF32(binary.LittleEndian.Uint16(b)) }

// Q8_0: f16 d, int8 q[32]; x = d·q.
func dequantQ8_0(out []float32, b []byte) {
	d := half(b)
	for j, q := range b[2:34] {
		out[j] = d * float32(int8(q))
	}
}

// Q4_0: f16 d, qs[16]; the low nibble of qs[j] is element j, the high
// nibble element j+16; x = d·(q − 8).
func dequantQ4_0(out []float32, b []byte) {
	d := half(b)
	for j, q := range b[2:18] {
		out[j] = d * float32(int(q&0xF)-8)
		out[j+16] = d * float32(int(q>>4)-8)
	}
}

// Q4_1: f16 d, f16 m, qs[16] as in Q4_0; x = d·q + m.
func dequantQ4_1(out []float32, b []byte) {
	d, m := half(b), half(b[2:])
	for j, q := range b[4:20] {
		out[j] = d*float32(q&0xF) + m
		out[j+16] = d*float32(q>>4) + m
	}
}

// Q5_0: f16 d, qh (a little-endian u32 holding each element's fifth bit:
// bit j for element j), qs[16] as in Q4_0; x = d·(q − 16).
func dequantQ5_0(out []float32, b []byte) {
	d := half(b)
	qh := binary.LittleEndian.Uint32(b[2:])
	for j, q := range b[6:22] {
		lo := int(q&0xF) | int(qh>>j&1)<<4
		hi := int(q>>4) | int(qh>>(j+16)&1)<<4
		out[j] = d * float32(lo-16)
		out[j+16] = d * float32(hi-16)
	}
}

// scaleMin returns the 6-bit scale and min of sub-block s of a Q4_K or Q5_K
// super-block from its packed scales[12]: bytes 0–3 hold scales 0–3 and
// bytes 4–7 mins 0–3 in their low six bits; sub-blocks 4–7 take their low
// four bits from bytes 8–11 (scale in the low nibble, min in the high) and
// their top two from the top bits of bytes 0–7.
func scaleMin(scales []byte, s int) (sc, m int) {
	if s < 4 {
		return int(scales[s] & 63), int(scales[s+4] & 63)
	}
	sc = int(scales[s+4]&0xF) | int(scales[s-4]>>6)<<4
	m = int(scales[s+4]>>4) | int(scales[s]>>6)<<4
	return sc, m
}

// Q4_K: f16 d, f16 dmin, scales[12], qs[128]; eight sub-blocks of 32 with
// x = d·sc·q − dmin·m. qs is four chunks of 32 bytes: chunk c holds
// sub-block 2c in its low nibbles and sub-block 2c+1 in its high ones.
func dequantQ4_K(out []float32, b []byte) {
	d, dmin := half(b), half(b[2:])
	scales, qs := b[4:16], b[16:144]
	for c := range 4 {
		sc0, m0 := scaleMin(scales, 2*c)
		sc1, m1 := scaleMin(scales, 2*c+1)
		d0, min0 := d*float32(sc0), dmin*float32(m0)
		d1, min1 := d*float32(sc1), dmin*float32(m1)
		for l, q := range qs[32*c : 32*c+32] {
			out[64*c+l] = d0*float32(q&0xF) - min0
			out[64*c+32+l] = d1*float32(q>>4) - min1
		}
	}
}

// Q5_K: f16 d, f16 dmin, scales[12], qh[32], qs[128]: Q4_K's layout, plus
// a fifth bit per element: bit 2c of qh[l] for element 64c+l, bit 2c+1 for
// element 64c+32+l.
func dequantQ5_K(out []float32, b []byte) {
	d, dmin := half(b), half(b[2:])
	scales, qh, qs := b[4:16], b[16:48], b[48:176]
	for c := range 4 {
		sc0, m0 := scaleMin(scales, 2*c)
		sc1, m1 := scaleMin(scales, 2*c+1)
		d0, min0 := d*float32(sc0), dmin*float32(m0)
		d1, min1 := d*float32(sc1), dmin*float32(m1)
		for l, q := range qs[32*c : 32*c+32] {
			lo := int(q&0xF) | int(qh[l]>>(2*c)&1)<<4
			hi := int(q>>4) | int(qh[l]>>(2*c+1)&1)<<4
			out[64*c+l] = d0*float32(lo) - min0
			out[64*c+32+l] = d1*float32(hi) - min1
		}
	}
}

// Q6_K: ql[128], qh[64], int8 scales[16], f16 d; sixteen sub-blocks of 16
// with x = d·scale·(q − 32), q six bits. Each half of 128 elements (n = 0,
// 1) uses ql[64n:], qh[32n:] and scales[8n:]: element l (l < 32) takes the
// low nibble of ql[l] and bits 0–1 of qh[l]; element l+32 the low nibble of
// ql[l+32] and bits 2–3; l+64 the high nibble of ql[l] and bits 4–5; l+96
// the high nibble of ql[l+32] and bits 6–7.
func dequantQ6_K(out []float32, b []byte) {
	d := half(b[208:])
	for n := range 2 {
		ql, qh, sc := b[64*n:64*n+64], b[128+32*n:128+32*n+32], b[192+8*n:192+8*n+8]
		o := out[128*n : 128*n+128]
		for l := range 32 {
			is := l / 16
			q1 := int(ql[l]&0xF) | int(qh[l]&3)<<4
			q2 := int(ql[l+32]&0xF) | int(qh[l]>>2&3)<<4
			q3 := int(ql[l]>>4) | int(qh[l]>>4&3)<<4
			q4 := int(ql[l+32]>>4) | int(qh[l]>>6&3)<<4
			o[l] = d * float32(int8(sc[is])) * float32(q1-32)
			o[l+32] = d * float32(int8(sc[is+2])) * float32(q2-32)
			o[l+64] = d * float32(int8(sc[is+4])) * float32(q3-32)
			o[l+96] = d * float32(int8(sc[is+6])) * float32(q4-32)
		}
	}
}

// Q8_K: f32 d, int8 qs[256], int16 bsums[16] (the sums of each 16 quants,
// for dot products); x = d·q.
func dequantQ8_K(out []float32, b []byte) {
	d := math.Float32frombits(binary.LittleEndian.Uint32(b))
	for j, q := range b[4:260] {
		out[j] = d * float32(int8(q))
	}
}
