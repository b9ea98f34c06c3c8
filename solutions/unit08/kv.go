package unit08

import (
	"encoding/binary"
	"math"

	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
)

// kv is one layer's keys or values as attention reads them: float32 rows
// where they lie (a unit03.Mat, typ CacheF32), or a Store's F16 or Q8_0
// rows, widened to float32 a block at a time.
type kv struct {
	m        unit03.Mat // the float32 rows, for CacheF32
	typ      CacheType
	data     []byte // the stored rows, for CacheF16 and CacheQ8_0
	rowBytes int
	rows     int // the rows there are: m.Rows, or the store's positions
}

// matKV reads the float32 rows of m.
func matKV(m unit03.Mat) kv { return kv{m: m, rows: m.Rows} }

// block returns rows a … a+n−1, columns c0 … c0+w−1 as float32s, with
// the stride between rows: a view of the float32 rows, or the stored rows
// widened into buf (n·w floats, stride w). For Q8_0, c0 and w are
// multiples of Q8Block.
func (r *kv) block(buf []float32, a, n, c0, w int) ([]float32, int) {
	if r.typ == CacheF32 {
		return r.m.Data[a*r.m.Stride+c0:], r.m.Stride
	}
	for i := range n {
		row := r.data[(a+i)*r.rowBytes:]
		dst := buf[i*w : (i+1)*w]
		if r.typ == CacheF16 {
			widenF16(dst, row[2*c0:2*(c0+w)])
		} else {
			widenQ8(dst, row[c0/Q8Block*Q8BlockBytes:(c0+w)/Q8Block*Q8BlockBytes])
		}
	}
	return buf, w
}

// encode stores the float32 row x into row pos of r, in r's type.
func (r *kv) encode(pos int, x []float32) {
	if r.typ == CacheF32 {
		copy(r.m.Row(pos), x)
		return
	}
	row := r.data[pos*r.rowBytes : (pos+1)*r.rowBytes]
	if r.typ == CacheF16 {
		for i, v := range x {
			binary.LittleEndian.PutUint16(row[2*i:], unit01.F32ToF16(v))
		}
		return
	}
	for b := 0; b < len(x); b += Q8Block {
		quantQ8(row[b/Q8Block*Q8BlockBytes:(b/Q8Block+1)*Q8BlockBytes], x[b:b+Q8Block])
	}
}

// quantQ8 writes 32 values as a Q8_0 block, as llama.cpp's CPU backend
// writes its cache: d = max|x|/127 stored as F16, and each q the nearest
// integer to x·127/max|x|, ties to even (the SIMD rounding it uses on x86
// and ARM). A block of zeros gets d = 0 and q = 0.
func quantQ8(b []byte, x []float32) {
	var amax float32
	for _, v := range x {
		amax = max(amax, float32(math.Abs(float64(v))))
	}
	binary.LittleEndian.PutUint16(b, unit01.F32ToF16(amax/127))
	var id float32
	if amax != 0 {
		id = 127 / amax
	}
	for i, v := range x {
		b[2+i] = byte(int8(math.RoundToEven(float64(v * id))))
	}
}

// widenF16Go writes the float32 values of the halves src into dst.
func widenF16Go(dst []float32, src []byte) {
	for i := range dst {
		dst[i] = unit01.F16ToF32(binary.LittleEndian.Uint16(src[2*i:]))
	}
}

// widenQ8Go writes the values d·q of the Q8_0 blocks src into dst.
func widenQ8Go(dst []float32, src []byte) {
	for b := 0; b < len(dst); b += Q8Block {
		blk := src[b/Q8Block*Q8BlockBytes:]
		d := unit01.F16ToF32(binary.LittleEndian.Uint16(blk))
		for i := range Q8Block {
			dst[b+i] = d * float32(int8(blk[2+i]))
		}
	}
}
