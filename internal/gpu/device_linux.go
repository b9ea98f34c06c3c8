//go:build linux

package gpu

import (
	"fmt"

	"github.com/llmforge/forge/internal/cuda"
	"github.com/llmforge/forge/internal/cuda/kernels"
	"github.com/llmforge/forge/unit03"
	"github.com/llmforge/forge/unit05"
	"github.com/llmforge/forge/unit09"
)

// The launch shapes of engine.cu's kernels (its MUL_WARPS, MUL_ROWS and
// ATT_WARPS).
const (
	mulWarps = 4 // output rows per block of mul_t_*, a warp each
	mulRows  = 4 // rows of x a warp of mul_t_* takes at once
	attWarps = 4 // warps per (row, head) of attend_*
)

// Device is a context on the first CUDA device with engine.cu loaded, and
// the buffers through which activations go in and results come out. Like
// a Model, it is not safe for concurrent use.
type Device struct {
	ctx     *cuda.Context
	mod     *cuda.Module
	kernels map[string]*cuda.Kernel
	in, out cuda.Buffer // staging on the device: x (or q, or new keys) in, y (or attention) out
	rows    []float32   // staging on the host, for matrices whose rows have gaps
}

// Open makes a context on device 0 and loads the kernels. Without a
// driver or a device its error wraps cuda.ErrNoDriver.
func Open() (*Device, error) {
	ctx, err := cuda.NewContext(0)
	if err != nil {
		return nil, err
	}
	d := &Device{ctx: ctx, kernels: map[string]*cuda.Kernel{}}
	if d.mod, err = ctx.Load(kernels.PTX("engine")); err != nil {
		ctx.Close()
		return nil, fmt.Errorf("cuda: loading engine.ptx: %w", err)
	}
	for _, name := range []string{"mul_t_f32", "mul_t_f16", "mul_t_q8_0", "mul_t_q4_0", "to_f16", "attend_f32", "attend_f16"} {
		k, err := d.mod.Kernel(name)
		if err != nil {
			ctx.Close()
			return nil, fmt.Errorf("cuda: engine.ptx: %w", err)
		}
		d.kernels[name] = k
	}
	return d, nil
}

// Name is the device's name, as the driver gives it.
func (d *Device) Name() string { return d.ctx.Name }

// Close releases the context and everything on the device: the model's
// device matrices and store must not be used afterwards.
func (d *Device) Close() error { return d.ctx.Close() }

// grow makes *b hold at least n bytes, replacing it when it is smaller.
func (d *Device) grow(b *cuda.Buffer, n int) error {
	if b.Size() >= n {
		return nil
	}
	if b.Size() > 0 {
		if err := d.ctx.Free(*b); err != nil {
			return err
		}
		*b = cuda.Buffer{}
	}
	nb, err := d.ctx.Alloc(max(n, 1<<16))
	if err != nil {
		return err
	}
	*b = nb
	return nil
}

// copyIn copies the rows of m, without the gaps between them, to the
// start of b.
func (d *Device) copyIn(b cuda.Buffer, m unit03.Mat) error {
	n := m.Rows * m.Cols
	if m.Stride == m.Cols || m.Rows <= 1 {
		return d.ctx.CopyIn(b, m.Data[:n])
	}
	d.rows = grown(d.rows, n)
	for t := range m.Rows {
		copy(d.rows[t*m.Cols:(t+1)*m.Cols], m.Row(t))
	}
	return d.ctx.CopyIn(b, d.rows)
}

// copyOut copies the start of b into the rows of m.
func (d *Device) copyOut(m unit03.Mat, b cuda.Buffer) error {
	n := m.Rows * m.Cols
	if m.Stride == m.Cols || m.Rows <= 1 {
		return d.ctx.CopyOut(m.Data[:n], b)
	}
	d.rows = grown(d.rows, n)
	if err := d.ctx.CopyOut(d.rows, b); err != nil {
		return err
	}
	for t := range m.Rows {
		copy(m.Row(t), d.rows[t*m.Cols:(t+1)*m.Cols])
	}
	return nil
}

func grown(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}

// Matrix is a weight matrix uploaded to the device: a unit05.Matrix whose
// MulT runs there. Row (an embedding lookup) reads the CPU's matrix.
type Matrix struct {
	d       *Device
	cpu     unit05.Matrix
	kind    string
	out, in int
	w       cuda.Buffer
	kernel  *cuda.Kernel
}

// Upload copies m's weights to the device, as they are: float32s, halves,
// or Q8_0 and Q4_0 blocks. A matrix of another type is an error (Kind
// says which types go).
func (d *Device) Upload(m unit05.Matrix) (*Matrix, error) {
	kind, why := Kind(m)
	if kind == "" {
		return nil, fmt.Errorf("cuda: cannot upload %s", why)
	}
	out, in := m.Dims()
	dm := &Matrix{d: d, cpu: m, kind: kind, out: out, in: in, kernel: d.kernels["mul_t_"+kind]}
	var err error
	switch w := m.(type) {
	case *unit05.Dense:
		if dm.w, err = d.ctx.Alloc(4 * out * in); err == nil {
			err = d.copyIn(dm.w, w.W)
		}
	case *unit09.QMatrix:
		if dm.w, err = d.ctx.Alloc(len(w.Data)); err == nil {
			err = d.ctx.CopyInBytes(dm.w, w.Data)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("uploading a %d×%d %s matrix: %w", out, in, kind, err)
	}
	return dm, nil
}

// Dims returns the matrix's shape.
func (m *Matrix) Dims() (out, in int) { return m.out, m.in }

// Row copies row i of the CPU's matrix into dst.
func (m *Matrix) Row(dst []float32, i int) { m.cpu.Row(dst, i) }

// CPU is the matrix the weights came from.
func (m *Matrix) CPU() unit05.Matrix { return m.cpu }

// Kind is the kernel the matrix runs: f32, f16, q8_0 or q4_0.
func (m *Matrix) Kind() string { return m.kind }

// Bytes is the size of the weights on the device.
func (m *Matrix) Bytes() int { return m.w.Size() }

// MulT sets y = x·Wᵀ on the device: x is copied in, the kernel of the
// weights' type runs, y is copied out. The pool is not used. It panics on
// shapes that do not fit, and on a failing device (a forward pass has no
// way to return an error, and a device that failed is not one to go on
// with).
func (m *Matrix) MulT(_ *unit03.Pool, y, x unit03.Mat) {
	if x.Cols != m.in || y.Cols != m.out || y.Rows != x.Rows {
		panic(fmt.Sprintf("gpu.Matrix.MulT: x is %d×%d and y %d×%d for a %d×%d matrix", x.Rows, x.Cols, y.Rows, y.Cols, m.out, m.in))
	}
	if err := m.mulT(y, x); err != nil {
		panic(fmt.Errorf("gpu: a %d×%d %s product of %d rows: %w", m.out, m.in, m.kind, x.Rows, err))
	}
}

func (m *Matrix) mulT(y, x unit03.Mat) error {
	d, T := m.d, x.Rows
	if T == 0 {
		return nil
	}
	if err := d.grow(&d.in, 4*T*m.in); err != nil {
		return err
	}
	if err := d.grow(&d.out, 4*T*m.out); err != nil {
		return err
	}
	if err := d.copyIn(d.in, x); err != nil {
		return err
	}
	grid := cuda.Dim3{X: (m.out + mulWarps - 1) / mulWarps, Y: (T + mulRows - 1) / mulRows, Z: 1}
	if err := m.kernel.Launch(grid, cuda.Dim3{X: 32 * mulWarps, Y: 1, Z: 1}, 0, m.w, d.out, d.in, int32(T), int32(m.out), int32(m.in)); err != nil {
		return err
	}
	return d.copyOut(y, d.out)
}

// Store is a KV cache whose offloaded layers keep their keys and values on
// the device (as float32s or halves) and attend there; the layers before
// the first offloaded one go to the CPU's store. It is a unit05.KVStore.
type Store struct {
	d             *Device
	cpu           unit05.KVStore // layers 0 … first−1; nil when every layer is offloaded
	first         int
	half          bool          // halves, else float32s
	k, v          []cuda.Buffer // layer first+i's rows, maxSeq of kvDim each
	kvDim, elem   int
	maxSeq        int
	attend, toF16 *cuda.Kernel
}

// NewStore allocates the device's keys and values for layers first …
// layers−1, maxSeq positions of kvDim values each, as halves or float32s;
// cpu keeps layers 0 … first−1 (nil when first is 0).
func (d *Device) NewStore(cpu unit05.KVStore, first, layers, maxSeq, kvDim int, half bool) (*Store, error) {
	s := &Store{d: d, cpu: cpu, first: first, half: half, kvDim: kvDim, elem: 4, maxSeq: maxSeq,
		attend: d.kernels["attend_f32"], toF16: d.kernels["to_f16"]}
	if half {
		s.elem, s.attend = 2, d.kernels["attend_f16"]
	}
	for range layers - first {
		k, err := d.ctx.Alloc(maxSeq * kvDim * s.elem)
		if err != nil {
			return nil, fmt.Errorf("the KV cache on the device: %w", err)
		}
		v, err := d.ctx.Alloc(maxSeq * kvDim * s.elem)
		if err != nil {
			return nil, fmt.Errorf("the KV cache on the device: %w", err)
		}
		s.k, s.v = append(s.k, k), append(s.v, v)
	}
	return s, nil
}

// Bytes is the device memory of the keys and values.
func (s *Store) Bytes() int64 { return int64(2*len(s.k)) * int64(s.maxSeq*s.kvDim*s.elem) }

// Put stores the T rows of k and v as positions pos0 … pos0+T−1 of layer
// l. It panics on a failing device and on positions outside the store.
func (s *Store) Put(l, pos0 int, k, v unit03.Mat) {
	if l < s.first {
		s.cpu.Put(l, pos0, k, v)
		return
	}
	if k.Cols != s.kvDim || v.Cols != s.kvDim || k.Rows != v.Rows || pos0 < 0 || pos0+k.Rows > s.maxSeq {
		panic(fmt.Sprintf("gpu.Store.Put: %d×%d keys and %d×%d values at position %d, for rows of %d and %d positions", k.Rows, k.Cols, v.Rows, v.Cols, pos0, s.kvDim, s.maxSeq))
	}
	for _, kv := range []struct {
		rows unit03.Mat
		buf  cuda.Buffer
	}{{k, s.k[l-s.first]}, {v, s.v[l-s.first]}} {
		if err := s.put(kv.buf, pos0, kv.rows); err != nil {
			panic(fmt.Errorf("gpu: storing layer %d's keys and values at position %d: %w", l, pos0, err))
		}
	}
}

// put writes rows as positions pos0 … of one layer's keys or values.
func (s *Store) put(buf cuda.Buffer, pos0 int, rows unit03.Mat) error {
	n := rows.Rows * s.kvDim
	dst := buf.Slice(pos0*s.kvDim*s.elem, n*s.elem)
	if !s.half {
		return s.d.copyIn(dst, rows)
	}
	if err := s.d.grow(&s.d.in, 4*n); err != nil {
		return err
	}
	if err := s.d.copyIn(s.d.in, rows); err != nil {
		return err
	}
	return s.toF16.Launch(cuda.Dim3{X: (n + 255) / 256, Y: 1, Z: 1}, cuda.Dim3{X: 256, Y: 1, Z: 1}, 0, dst, s.d.in, int32(n))
}

// Attend computes attention for the T rows of q at positions pos0 …
// pos0+T−1 over layer l's stored positions 0 … pos0+T−1, on the device for
// an offloaded layer (the pool is then not used).
func (s *Store) Attend(p *unit03.Pool, out, q unit03.Mat, l, heads, kvHeads, pos0 int) {
	if l < s.first {
		s.cpu.Attend(p, out, q, l, heads, kvHeads, pos0)
		return
	}
	headDim := s.kvDim / kvHeads
	if q.Cols != heads*headDim || out.Cols != q.Cols || out.Rows != q.Rows || pos0+q.Rows > s.maxSeq {
		panic(fmt.Sprintf("gpu.Store.Attend: %d×%d queries into %d×%d at position %d, for %d heads of %d and %d positions", q.Rows, q.Cols, out.Rows, out.Cols, pos0, heads, headDim, s.maxSeq))
	}
	if err := s.attendOn(out, q, l, heads, kvHeads, headDim, pos0); err != nil {
		panic(fmt.Errorf("gpu: attention of layer %d at position %d: %w", l, pos0, err))
	}
}

func (s *Store) attendOn(out, q unit03.Mat, l, heads, kvHeads, headDim, pos0 int) error {
	d, T := s.d, q.Rows
	if T == 0 {
		return nil
	}
	if err := d.grow(&d.in, 4*T*q.Cols); err != nil {
		return err
	}
	if err := d.grow(&d.out, 4*T*q.Cols); err != nil {
		return err
	}
	if err := d.copyIn(d.in, q); err != nil {
		return err
	}
	i := l - s.first
	if err := s.attend.Launch(cuda.Dim3{X: heads, Y: T, Z: 1}, cuda.Dim3{X: 32 * attWarps, Y: 1, Z: 1}, 0,
		d.out, d.in, s.k[i], s.v[i], int32(T), int32(heads), int32(kvHeads), int32(headDim), int32(pos0)); err != nil {
		return err
	}
	return d.copyOut(out, d.out)
}

// Offload moves the last n layers of m onto d (n < 0: all of them): each
// of their seven matrices whose type the device multiplies is uploaded and
// takes the CPU's matrix's place, and, when the heads fit the attention
// kernel, m.Store becomes a Store whose offloaded layers keep their keys
// and values on d as halves (half) or float32s; cpuStore makes the store
// of the layers that stay on the CPU (layers 0 … first−1), called only
// when there are some. Make m's sessions after Offload. On an error m may
// be half offloaded: close d and m.
func Offload(d *Device, m *unit05.Model, n int, half bool, cpuStore func(layers int) (unit05.KVStore, error)) (Plan, error) {
	return offload(d, m, n, half, cpuStore)
}

// The backend methods, for offload.

func (d *Device) upload(m unit05.Matrix) (unit05.Matrix, int, error) {
	dm, err := d.Upload(m)
	if err != nil {
		return nil, 0, err
	}
	return dm, dm.Bytes(), nil
}

func (d *Device) newStore(cpu unit05.KVStore, first, layers, maxSeq, kvDim int, half bool) (unit05.KVStore, int64, error) {
	s, err := d.NewStore(cpu, first, layers, maxSeq, kvDim, half)
	if err != nil {
		return nil, 0, err
	}
	return s, s.Bytes(), nil
}
