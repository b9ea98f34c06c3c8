package unit09

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
)

// QMatrix is a weight matrix stored [out, in] in one of ggml's types, as a
// GGUF tensor holds it: Rows rows of RowBytes(Cols) bytes each. It is a
// unit05.Matrix, so a model runs on quantized weights unchanged: MulT
// quantizes each row of activations once (VecDotType) and takes its dot
// products with every weight row, without ever dequantizing the weights.
// Data may be a view of a memory-mapped file; QMatrix never writes to it.
type QMatrix struct {
	Type       unit01.DType
	Rows, Cols int
	Data       []byte
	rowBytes   int
	pack       sync.Once
	packed     []byte // the rows packed sixteen at a time, made at the first MulT (rows16_amd64.go)
}

// NewQMatrix wraps data as a rows×cols matrix of type dt. A type this
// package cannot multiply, a cols that is not a whole number of blocks, or
// data of the wrong size is an error wrapping unit00.ErrUnsupported or
// unit00.ErrInvalid.
func NewQMatrix(dt unit01.DType, rows, cols int, data []byte) (*QMatrix, error) {
	if !Supported(dt) || dt == unit01.Q8_K {
		return nil, fmt.Errorf("quant: %v weights: %w", dt, unit00.ErrUnsupported)
	}
	rb, err := dt.RowBytes(cols)
	if err != nil || cols <= 0 {
		return nil, fmt.Errorf("quant: a %d×%d %v matrix: rows of %d elements are not a positive whole number of blocks of %d: %w", rows, cols, dt, cols, dt.BlockSize(), unit00.ErrInvalid)
	}
	if rows < 0 {
		return nil, fmt.Errorf("quant: a %d×%d %v matrix: negative rows: %w", rows, cols, dt, unit00.ErrInvalid)
	}
	if len(data) != rows*rb {
		return nil, fmt.Errorf("quant: a %d×%d %v matrix takes %d bytes, not %d: %w", rows, cols, dt, rows*rb, len(data), unit00.ErrInvalid)
	}
	return &QMatrix{Type: dt, Rows: rows, Cols: cols, Data: data, rowBytes: rb}, nil
}

// QuantizeMatrix quantizes a float32 matrix to type dt, row by row.
func QuantizeMatrix(dt unit01.DType, w unit03.Mat) (*QMatrix, error) {
	if !Supported(dt) || dt == unit01.Q8_K {
		return nil, fmt.Errorf("quant: %v weights: %w", dt, unit00.ErrUnsupported)
	}
	rb, err := dt.RowBytes(w.Cols)
	if err != nil {
		return nil, fmt.Errorf("quant: %d columns of %v: %w", w.Cols, dt, err)
	}
	data := make([]byte, w.Rows*rb)
	for i := range w.Rows {
		if err := QuantizeRow(dt, data[i*rb:(i+1)*rb], w.Row(i)); err != nil {
			return nil, err
		}
	}
	return NewQMatrix(dt, w.Rows, w.Cols, data)
}

// Dims returns the matrix's shape.
func (m *QMatrix) Dims() (out, in int) { return m.Rows, m.Cols }

// Row dequantizes row i into dst (len Cols): an embedding lookup.
func (m *QMatrix) Row(dst []float32, i int) {
	unit00.Check(i >= 0 && i < m.Rows && len(dst) == m.Cols, "QMatrix.Row: row out of range or dst of the wrong length")
	if err := DequantizeRow(m.Type, dst, m.row(i)); err != nil {
		panic(err) // NewQMatrix checked the geometry
	}
}

func (m *QMatrix) row(i int) []byte { return m.Data[i*m.rowBytes : (i+1)*m.rowBytes] }

// MulT sets y = x·Wᵀ: row t of y holds the dot products of row t of x with
// every row of W. Each activation row is quantized once to VecDotType;
// then the weight rows are shared out over the pool, and each weight row,
// once loaded, meets every activation row. It allocates nothing in steady
// state.
func (m *QMatrix) MulT(p *unit03.Pool, y, x unit03.Mat) {
	unit00.Check(x.Cols == m.Cols && y.Cols == m.Rows && y.Rows == x.Rows, "QMatrix.MulT: x must be T × Cols and y T × Rows")
	if m.Type == unit01.F16 || m.Type == unit01.BF16 {
		m.mulHalf(p, y, x) // f16.go
		return
	}
	adt := VecDotType(m.Type)
	ab, _ := adt.RowBytes(m.Cols)
	packed := packs16(m.Type)
	if packed {
		m.pack.Do(func() { m.packed = pack16(m) })
	}
	sb := 0 // bytes of prepareSums per activation row, for packed weights
	if packed {
		_, blockSums := packedBlock(m.Type)
		sb = m.Cols / m.Type.BlockSize() * blockSums
	}
	// The packed kernels take four rows at a time; a last two or three go
	// through the four-row kernel too (rows16), on padding rows whose
	// results are dropped: a pass of two or three tokens (a speculative
	// draft's, unit12) then reads each weight once, not once a row. The
	// activations are padded to a multiple of four rows for that.
	rows := x.Rows
	if packed {
		rows = (rows + 3) / 4 * 4
	}
	buf := buffers.get()
	defer buffers.put(buf)
	if cap(buf.b) < rows*(ab+sb) {
		buf.b = make([]byte, rows*(ab+sb))
	}
	acts, sums := buf.b[:rows*ab], buf.b[rows*ab:rows*(ab+sb)]
	for t := range x.Rows {
		quantizeActivations(adt, acts[t*ab:(t+1)*ab], x.Row(t))
		if packed {
			prepareSums(m.Type, sums[t*sb:(t+1)*sb], acts[t*ab:(t+1)*ab])
		}
	}
	parts := min(p.Threads(), (m.Rows+15)/16)
	task := tasks.get()
	*task = mulTask{m: m, y: y, acts: acts, actBytes: ab, sums: sums, packed: packed, parts: parts}
	p.RunTask(parts, task)
	*task = mulTask{}
	tasks.put(task)
}

// quantizeActivations writes one row of activations as type adt: the
// float32 bits themselves for F32.
func quantizeActivations(adt unit01.DType, dst []byte, x []float32) {
	switch adt {
	case unit01.F32:
		for i, v := range x {
			binary.LittleEndian.PutUint32(dst[4*i:], math.Float32bits(v))
		}
	case unit01.Q8_0:
		activationsQ8_0Row(dst, x) // acts_amd64.go
	default:
		if err := QuantizeRow(adt, dst, x); err != nil {
			panic(err) // the lengths were checked by MulT
		}
	}
}

// activationsQ8_0 quantizes one block of activations to Q8_0 the way
// llama.cpp does at run time (its SIMD routine), which differs from the
// reference quantizer (QuantizeRow, used for weights) in two last-bit
// details: the inverse scale is 127/max|x| rather than 1/d, and ties round
// to even. Activations meet exact ties more often than one would think (a
// Q4_0 embedding row holds few distinct values), and each tie rounded the
// other way moves a logit; following llama.cpp here keeps a model's
// arithmetic identical to its.
// activationsQ8_0Go quantizes a row of whole blocks with activationsQ8_0.
func activationsQ8_0Go(dst []byte, x []float32) {
	for b := 0; b < len(x); b += 32 {
		activationsQ8_0(dst[b/32*34:b/32*34+34], x[b:b+32])
	}
}

func activationsQ8_0(b []byte, x []float32) {
	amax, _ := absMax(x)
	putHalf(b, amax/127)
	var id float32
	if amax != 0 {
		id = 127 / amax
	}
	for j, v := range x {
		b[2+j] = byte(int8(nearest(v * id)))
	}
}

// mulTask is one MulT shared out over a pool: part t computes a range of
// weight rows, for every activation row.
type mulTask struct {
	m        *QMatrix
	y        unit03.Mat
	acts     []byte
	actBytes int
	sums     []byte // per activation block, what packed kernels start from (prepareSums)
	packed   bool   // the weights go through rows16 (rows16_amd64.go)
	parts    int
}

// Do computes weight rows [lo, hi) of part t, four at a time where a
// four-row kernel exists: each activation block, once loaded, serves four
// weight rows. Packed weights go sixteen rows at a time (rows16).
func (k *mulTask) Do(t int) {
	if k.packed {
		groups := (k.m.Rows + 15) / 16
		var out [8][16]float32
		for g := t * groups / k.parts; g < (t+1)*groups/k.parts; g++ {
			k.rows16(g, &out)
		}
		return
	}
	// Parts begin on multiples of four rows, so that a row goes through the
	// same kernel (dot4, or dot for the last rows) whatever the thread count.
	quads := (k.m.Rows + 3) / 4
	lo, hi := t*quads/k.parts*4, min((t+1)*quads/k.parts*4, k.m.Rows)
	dt, y := k.m.Type, k.y
	j := lo
	for ; j+4 <= hi; j += 4 {
		w0, w1, w2, w3 := k.m.row(j), k.m.row(j+1), k.m.row(j+2), k.m.row(j+3)
		r := 0
		for ; r < y.Rows; r++ {
			a := k.acts[r*k.actBytes : (r+1)*k.actBytes]
			out := (*[4]float32)(y.Data[r*y.Stride+j : r*y.Stride+j+4])
			if !dot4(dt, w0, w1, w2, w3, a, out) {
				out[0], out[1], out[2], out[3] = dot(dt, w0, a), dot(dt, w1, a), dot(dt, w2, a), dot(dt, w3, a)
			}
		}
	}
	for ; j < hi; j++ {
		w := k.m.row(j)
		for r := range y.Rows {
			y.Data[r*y.Stride+j] = dot(dt, w, k.acts[r*k.actBytes:(r+1)*k.actBytes])
		}
	}
}

// byteBuf is a reusable scratch buffer.
type byteBuf struct{ b []byte }

// freeList keeps objects for reuse; unlike a sync.Pool it never drops them
// at a garbage collection, so a steady state allocates nothing.
type freeList[T any] struct {
	mu   sync.Mutex
	free []*T
}

func (f *freeList[T]) get() *T {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n := len(f.free); n > 0 {
		x := f.free[n-1]
		f.free = f.free[:n-1]
		return x
	}
	return new(T)
}

func (f *freeList[T]) put(x *T) {
	f.mu.Lock()
	f.free = append(f.free, x)
	f.mu.Unlock()
}

var (
	buffers freeList[byteBuf]
	tasks   freeList[mulTask]
)
