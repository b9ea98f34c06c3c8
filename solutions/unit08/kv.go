package unit08

import (
	"encoding/binary"
	"math"

	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
)

// kv is one layer's keys or values as attention reads them: float32 rows
// where they lie (a unit03.Mat, typ CacheF32), a Store's F16 or Q8_0
// rows, widened to float32 a block at a time, or rows someone else keeps,
// read through a RowReader (8.6).
type kv struct {
	m        unit03.Mat // the float32 rows, for CacheF32
	typ      CacheType
	data     []byte // the stored rows, for CacheF16 and CacheQ8_0
	rowBytes int
	rows     int       // the rows there are: m.Rows, the store's positions, or ext.Len()
	ext      RowReader // when set, the rows are read through it (typ CacheF32)
}

// matKV reads the float32 rows of m.
func matKV(m unit03.Mat) kv { return kv{m: m, rows: m.Rows} }

// block returns rows a … a+n−1, columns c0 … c0+w−1 as float32s, with
// the stride between rows: a view of the float32 rows, the stored rows
// widened into buf (n·w floats, stride w), or what a RowReader gives. For Q8_0, c0 and w are
// multiples of Q8Block.
func (r *kv) block(buf []float32, a, n, c0, w int) ([]float32, int) {
	if r.ext != nil {
		return r.ext.ReadRows(buf[:n*w], a, n, c0, w)
	}
	if r.typ == CacheF32 {
		return r.m.Data[a*r.m.Stride+c0:], r.m.Stride
	}
	if r.typ == CacheF16 {
		widenF16Rows(buf[:n*w], w, r.data[a*r.rowBytes+2*c0:], r.rowBytes, n)
	} else {
		widenQ8Rows(buf[:n*w], w, r.data[a*r.rowBytes+c0/Q8Block*Q8BlockBytes:], r.rowBytes, n)
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

// widenF16Go widens n rows of w halves, row i at src[i·lds:], into dst
// (w floats a row).
func widenF16Go(dst []float32, w int, src []byte, lds, n int) {
	for i := range n {
		row, out := src[i*lds:i*lds+2*w], dst[i*w:(i+1)*w]
		for j := range out {
			out[j] = unit01.F16ToF32(binary.LittleEndian.Uint16(row[2*j:]))
		}
	}
}

// widenQ8Go widens n rows of w values kept as Q8_0 blocks, row i at
// src[i·lds:], into dst (w floats a row): each value d·q.
func widenQ8Go(dst []float32, w int, src []byte, lds, n int) {
	for i := range n {
		out := dst[i*w : (i+1)*w]
		for b := 0; b < w; b += Q8Block {
			blk := src[i*lds+b/Q8Block*Q8BlockBytes:]
			d := unit01.F16ToF32(binary.LittleEndian.Uint16(blk))
			for j := range Q8Block {
				out[b+j] = d * float32(int8(blk[2+j]))
			}
		}
	}
}

// dotsF16Go sets out[j] = scale·(q · key j) for the len(out) keys kept as
// halves at k[j·ldk:].
func dotsF16Go(out, q []float32, k []byte, ldk int, scale float32) {
	for j := range out {
		row := k[j*ldk : j*ldk+2*len(q)]
		var s float32
		for d, x := range q {
			s += x * unit01.F16ToF32(binary.LittleEndian.Uint16(row[2*d:]))
		}
		out[j] = scale * s
	}
}
