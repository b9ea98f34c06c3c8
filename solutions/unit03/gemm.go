package unit03

import (
	"github.com/llmforge/forge/unit00"
)

// Kernel names a micro-kernel: the innermost loop of the blocked product.
type Kernel int

const (
	KernelGo     Kernel = iota // pure Go, 4×4 tiles: every CPU
	KernelAVX2                 // x86-64 AVX2 + FMA, 6×16 tiles
	KernelAVX512               // x86-64 AVX-512, 12×32 tiles
)

// String names the kernel.
func (k Kernel) String() string {
	switch k {
	case KernelAVX2:
		return "AVX2"
	case KernelAVX512:
		return "AVX-512"
	}
	return "Go"
}

// Kernels returns the kernels this CPU and build can run, the pure-Go one
// first and the fastest last.
func Kernels() []Kernel {
	ks := []Kernel{KernelGo}
	if unit00.CPUSIMD() >= unit00.SIMDAVX2 {
		ks = append(ks, KernelAVX2)
	}
	if unit00.CPUSIMD() >= unit00.SIMDAVX512 {
		ks = append(ks, KernelAVX512)
	}
	return ks
}

// Best returns the fastest kernel this CPU and build can run.
func Best() Kernel {
	switch {
	case unit00.CPUSIMD() >= unit00.SIMDAVX512:
		return KernelAVX512
	case unit00.CPUSIMD() >= unit00.SIMDAVX2:
		return KernelAVX2
	}
	return KernelGo
}

// MatMul sets C = A·B with micro-kernel k, blocked for the caches and
// spread over the pool's goroutines (p may be nil: one thread). It panics
// (unit00.Check) on shapes that do not fit or a kernel this CPU lacks.
func MatMul(p *Pool, k Kernel, c, a, b Mat) {
	checkProduct("MatMul", c, a, b, false)
	gemm(p, k, c, a, b, false)
}

// MatMulT sets C = A·Bᵀ, B given as its N×K transpose bt (weights stored
// [out, in]), like MatMul.
func MatMulT(p *Pool, k Kernel, c, a, bt Mat) {
	checkProduct("MatMulT", c, a, bt, true)
	gemm(p, k, c, a, bt, true)
}

// geometry is a micro-kernel's tile (mr×nr) and the block sizes that keep
// its operands in cache: a kc×nr panel of B in L1 while a tile runs, an
// mc×kc block of A in L2 while it is reused against every panel of B, and a
// kc×nc block of B in L3 while it is reused against every block of A.
type geometry struct {
	mr, nr     int
	mc, kc, nc int
}

func (k Kernel) geometry() geometry {
	switch k {
	case KernelAVX2:
		return geometry{mr: 6, nr: 16, mc: 96, kc: 512, nc: 4096}
	case KernelAVX512:
		return geometry{mr: 12, nr: 32, mc: 72, kc: 1024, nc: 2048}
	}
	return geometry{mr: 4, nr: 4, mc: 64, kc: 256, nc: 4096}
}

// micro runs kernel k on the first rows rows of a tile: mr, or fewer where
// edgeRows allows it.
func (k Kernel) micro(rows, kc int, a, b, c []float32, ldc int, accumulate bool) {
	switch k {
	case KernelAVX2, KernelAVX512:
		microAsm(k, rows, kc, a, b, c, ldc, accumulate)
	default:
		kernelGo(kc, a, b, c, ldc, accumulate)
	}
}

// edgeRows is how many rows kernel k computes for a tile of rows ≤ mr
// rows: the AVX-512 kernel comes in 4-, 8- and 12-row versions (at 1024³
// a bottom edge of 4 rows computed as 12 costs 0.8% of the product), the
// others compute all mr.
func (k Kernel) edgeRows(rows int) int {
	if k == KernelAVX512 {
		return (rows + 3) &^ 3
	}
	return k.geometry().mr
}

// buffers are one worker's packing space, reused across calls.
type buffers struct {
	a, b, tile []float32
}

var bufferList freeList[buffers]

// gemm computes C = A·B (transB: B given transposed) with kernel k on the
// pool's threads. Each thread takes a slab of C's columns, or of its rows
// when C is too narrow to share out, and runs the blocked product on it.
func gemm(p *Pool, k Kernel, c, a, b Mat, transB bool) {
	unit00.Check(k == KernelGo || k.supported(), "MatMul: this CPU or build cannot run the kernel asked for")
	g := k.geometry()
	m, n := c.Rows, c.Cols
	threads := p.Threads()
	splitN := n >= m || m < threads*g.mr
	parts := threads
	if splitN {
		parts = min(parts, (n+g.nr-1)/g.nr)
	} else {
		parts = min(parts, (m+g.mr-1)/g.mr)
	}
	if parts <= 1 || m == 0 || n == 0 {
		blocked(k, g, c, a, b, transB)
		return
	}
	task := gemmTasks.get()
	*task = gemmTask{k: k, g: g, c: c, a: a, b: b, transB: transB, splitN: splitN, parts: parts}
	p.RunTask(parts, task)
	*task = gemmTask{} // drop the references to the caller's matrices
	gemmTasks.put(task)
}

// gemmTask is one product shared out over a pool: part t computes one slab
// of C. Tasks are recycled through gemmTasks, so a product on a pool
// allocates nothing in steady state.
type gemmTask struct {
	k       Kernel
	g       geometry
	c, a, b Mat
	transB  bool
	splitN  bool // slabs of columns (else of rows)
	parts   int
}

var gemmTasks freeList[gemmTask]

// Do computes slab t of C.
func (w *gemmTask) Do(t int) {
	m, n := w.c.Rows, w.c.Cols
	if w.splitN { // columns [lo, hi), cut at multiples of nr
		lo, hi := cut(n, w.g.nr, w.parts, t)
		var bs Mat
		if w.transB {
			bs = w.b.Block(lo, hi, 0, w.b.Cols) // rows of Bᵀ are columns of B
		} else {
			bs = w.b.Block(0, w.b.Rows, lo, hi)
		}
		blocked(w.k, w.g, w.c.Block(0, m, lo, hi), w.a, bs, w.transB)
		return
	}
	lo, hi := cut(m, w.g.mr, w.parts, t)
	blocked(w.k, w.g, w.c.Block(lo, hi, 0, n), w.a.Block(lo, hi, 0, w.a.Cols), w.b, w.transB)
}

// cut returns part t of parts of [0, n), cut at multiples of step.
func cut(n, step, parts, t int) (lo, hi int) {
	units := (n + step - 1) / step
	lo = t * units / parts * step
	hi = min((t+1)*units/parts*step, n)
	return lo, hi
}

// blocked is the single-threaded blocked product: the five loops around the
// micro-kernel of Goto and van de Geijn's design (BLIS).
func blocked(k Kernel, g geometry, c, a, b Mat, transB bool) {
	m, n, kk := c.Rows, c.Cols, a.Cols
	if kk == 0 { // an empty sum: C is zero
		for i := 0; i < m; i++ {
			clear(c.Row(i))
		}
		return
	}
	buf := bufferList.get()
	defer bufferList.put(buf)
	buf.a = grow(buf.a, g.mc*g.kc)
	buf.b = grow(buf.b, g.kc*g.nc)
	buf.tile = grow(buf.tile, g.mr*g.nr)
	for jc := 0; jc < n; jc += g.nc {
		nc := min(g.nc, n-jc)
		for pc := 0; pc < kk; pc += g.kc {
			kc := min(g.kc, kk-pc)
			packB(buf.b, b, pc, kc, jc, nc, g.nr, transB)
			for ic := 0; ic < m; ic += g.mc {
				mc := min(g.mc, m-ic)
				packA(buf.a, a, ic, mc, pc, kc, g.mr)
				// C += A-block · B-block, tile by tile; the first depth
				// block overwrites C, the rest add to it.
				for jr := 0; jr < nc; jr += g.nr {
					bp := buf.b[jr*kc : (jr+g.nr)*kc]
					for ir := 0; ir < mc; ir += g.mr {
						ap := buf.a[ir*kc : (ir+g.mr)*kc]
						tile(k, g, c, ic+ir, jc+jr, min(g.mr, mc-ir), min(g.nr, nc-jr), kc, ap, bp, buf.tile, pc > 0)
					}
				}
			}
		}
	}
}

// tile runs the micro-kernel for the rows×cols tile of C at (i, j): in place
// when the kernel's rows (mr, or fewer at the bottom edge: edgeRows) and nr
// columns fit it exactly, through the scratch tile otherwise.
func tile(k Kernel, g geometry, c Mat, i, j, rows, cols, kc int, ap, bp, scratch []float32, accumulate bool) {
	kr := k.edgeRows(rows)
	if kr == rows && cols == g.nr {
		k.micro(kr, kc, ap, bp, c.Data[i*c.Stride+j:], c.Stride, accumulate)
		return
	}
	k.micro(kr, kc, ap, bp, scratch, g.nr, false)
	for r := 0; r < rows; r++ {
		dst := c.Data[(i+r)*c.Stride+j : (i+r)*c.Stride+j+cols]
		src := scratch[r*g.nr : r*g.nr+cols]
		if accumulate {
			for x := range dst {
				dst[x] += src[x]
			}
		} else {
			copy(dst, src)
		}
	}
}

// packA copies the mc×kc block of A at (i0, p0) into panels of mr rows:
// panel after panel, each kc steps of mr floats (the tile's column p), rows
// past the end of A filled with zeros. It writes each panel in order, one
// step at a time, reading the mr rows side by side.
func packA(dst []float32, a Mat, i0, mc, p0, kc, mr int) {
	var rows [16][]float32 // mr ≤ 16
	for ir := 0; ir < mc; ir += mr {
		panel := dst[ir*kc : (ir+mr)*kc]
		live := min(mr, mc-ir)
		if live == mr && packPanelAsm(panel, a, i0+ir, p0, kc, mr) {
			continue
		}
		for r := 0; r < live; r++ {
			start := (i0+ir+r)*a.Stride + p0
			rows[r] = a.Data[start : start+kc]
		}
		for p := 0; p < kc; p++ {
			step := panel[p*mr : (p+1)*mr]
			for r := 0; r < live; r++ {
				step[r] = rows[r][p]
			}
			clear(step[live:])
		}
	}
}

// packB copies the kc×nc block of B at (p0, j0) into panels of nr columns:
// panel after panel, each kc steps of nr floats (row p of the tile's
// columns), columns past the end filled with zeros. With transB, b holds Bᵀ.
func packB(dst []float32, b Mat, p0, kc, j0, nc, nr int, transB bool) {
	for jr := 0; jr < nc; jr += nr {
		panel := dst[jr*kc : (jr+nr)*kc]
		cols := min(nr, nc-jr)
		if transB {
			packBT(panel, b, p0, kc, j0+jr, cols, nr)
			continue
		}
		if cols == nr && packBPanelAsm(panel, b, p0, kc, j0+jr, nr) {
			continue
		}
		for p := 0; p < kc; p++ {
			out := panel[p*nr : (p+1)*nr]
			copy(out[:cols], b.Data[(p0+p)*b.Stride+j0+jr:])
			clear(out[cols:])
		}
	}
}

// packBT packs one panel of B from Bᵀ: column x of the panel is row j+x
// of bt, columns p0 … p0+kc−1. It reads each of those rows from start to
// end and scatters it down the panel's column: reading along bt's rows
// (rather than gathering one float from each of nr rows per step of p)
// keeps the loads sequential, which makes this several times faster.
func packBT(panel []float32, bt Mat, p0, kc, j, cols, nr int) {
	row := func(x int) []float32 { return bt.Data[(j+x)*bt.Stride+p0 : (j+x)*bt.Stride+p0+kc] }
	x := 0
	for ; x+4 <= cols; x += 4 { // four rows at once: four adjacent floats per store
		r0, r1, r2, r3 := row(x), row(x+1), row(x+2), row(x+3)
		for p := range kc {
			out := panel[p*nr+x : p*nr+x+4]
			out[0], out[1], out[2], out[3] = r0[p], r1[p], r2[p], r3[p]
		}
	}
	for ; x < cols; x++ {
		for p, v := range row(x) {
			panel[p*nr+x] = v
		}
	}
	if cols < nr {
		for p := range kc {
			clear(panel[p*nr+cols : (p+1)*nr])
		}
	}
}

// grow returns s with room for n floats, reusing its array when it can.
func grow(s []float32, n int) []float32 {
	if cap(s) < n {
		return make([]float32, n)
	}
	return s[:n]
}
