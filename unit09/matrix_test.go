package unit09

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
	"github.com/llmforge/forge/unit03"
)

func TestC9_4_NewQMatrix(t *testing.T) {
	if _, err := NewQMatrix(unit01.Q4_0, 3, 64, make([]byte, 3*36)); err != nil {
		t.Fatalf("NewQMatrix of a well-formed 3×64 Q4_0 matrix: %v", err)
	}
	bad := []struct {
		dt         unit01.DType
		rows, cols int
		size       int
		kind       error
	}{
		{unit01.Q4_0, 3, 64, 3*36 - 1, unit00.ErrInvalid},
		{unit01.Q4_0, 3, 48, 3 * 27, unit00.ErrInvalid}, // 48 is not whole blocks of 32
		{unit01.Q4_K, 2, 128, 144, unit00.ErrInvalid},   // nor 128 of 256
		{unit01.Q8_K, 1, 256, 292, unit00.ErrUnsupported},
		{unit01.Q2_K, 1, 256, 84, unit00.ErrUnsupported},
	}
	for _, b := range bad {
		if _, err := NewQMatrix(b.dt, b.rows, b.cols, make([]byte, b.size)); !errors.Is(err, b.kind) {
			t.Errorf("NewQMatrix(%v, %d×%d, %d bytes): error %v, want one wrapping %v", b.dt, b.rows, b.cols, b.size, err, b.kind)
		}
	}
}

// TestC9_4_MulT multiplies by quantized matrices of every type, one row of
// activations (decode) and several (prefill), on one thread and two, and
// compares with the float64 product of the dequantized weights and the
// dequantized activations.
func TestC9_4_MulT(t *testing.T) {
	g := oracle.NewRand(95)
	p := unit03.NewPool(2)
	defer p.Close()
	const rows, cols = 37, 512 // rows left over after groups of four
	for _, dt := range weightTypes {
		data := randomBlocks(g, dt, rows*cols)
		m, err := NewQMatrix(dt, rows, cols, data)
		if err != nil {
			t.Fatal(err)
		}
		if o, i := m.Dims(); o != rows || i != cols {
			t.Fatalf("Dims() = %d, %d; want %d, %d", o, i, rows, cols)
		}
		wd := oracle.DequantRow(int(dt), data)
		// Row: the dequantized row, for embeddings.
		row := make([]float32, cols)
		m.Row(row, 5)
		oracle.AssertBound(t, fmt.Sprintf("%v QMatrix.Row(5)", dt), row, wd[5*cols:6*cols], scaled(wd[5*cols:6*cols], 4*eps32, 1e-30), nil)
		for _, T := range []int{1, 3} {
			for _, pool := range []*unit03.Pool{nil, p} {
				x := unit03.MatOf(T, cols, g.Normal(T*cols, 0, 1))
				y := unit03.Mat{Rows: T, Cols: rows, Stride: rows + 2, Data: make([]float32, T*(rows+2))}
				for i := range y.Data {
					y.Data[i] = -7 // garbage, and the padding's sentinel
				}
				m.MulT(pool, y, x)
				var want, bound []float64
				var got []float32
				for r := range T {
					a, ad := activations(t, dt, x.Row(r))
					_ = a
					for j := range rows {
						s, abs := 0.0, 0.0
						for i := range cols {
							s += wd[j*cols+i] * ad[i]
							abs += math.Abs(wd[j*cols+i] * ad[i])
						}
						want, bound = append(want, s), append(bound, (4*float64(cols/max(1, dt.BlockSize()))+64)*eps32*abs+1e-30)
					}
					got = append(got, y.Row(r)...)
					if y.Data[r*y.Stride+rows] != -7 {
						t.Fatalf("%v MulT wrote into y's padding", dt)
					}
				}
				oracle.AssertBound(t, fmt.Sprintf("%v QMatrix %d×%d MulT of %d rows on %d threads", dt, rows, cols, T, pool.Threads()), got, want, bound, []int{T, rows})
			}
		}
	}
}

func scaled(x []float64, rel, abs float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = math.Abs(v)*rel + abs
	}
	return out
}

// TestC9_4_QuantizeMatrix quantizes a float matrix and checks each row is
// QuantizeRow's.
func TestC9_4_QuantizeMatrix(t *testing.T) {
	g := oracle.NewRand(96)
	w := unit03.Mat{Rows: 5, Cols: 256, Stride: 260, Data: g.Normal(5*260, 0, 1)}
	for _, dt := range []unit01.DType{unit01.Q4_0, unit01.Q4_K, unit01.Q8_0, unit01.F16} {
		m, err := QuantizeMatrix(dt, w)
		if err != nil {
			t.Fatalf("QuantizeMatrix(%v): %v", dt, err)
		}
		rb := rowBytes(dt, 256)
		for i := range 5 {
			want := make([]byte, rb)
			if err := QuantizeRow(dt, want, w.Row(i)); err != nil {
				t.Fatal(err)
			}
			if string(m.Data[i*rb:(i+1)*rb]) != string(want) {
				t.Fatalf("QuantizeMatrix(%v): row %d differs from QuantizeRow of the same row (the stride of a strided matrix is not its row length)", dt, i)
			}
		}
	}
	// Q8_K quantizes rows (it is the K-quants' activation type) but is no
	// weight type: no dot product takes it as weights.
	if m, err := QuantizeMatrix(unit01.Q8_K, w); !errors.Is(err, unit00.ErrUnsupported) || m != nil {
		t.Errorf("QuantizeMatrix(Q8_K): %v, error %v; want nil and an error wrapping unit00.ErrUnsupported (an activation type, not a weight type)", m != nil, err)
	}
}

func TestC9_4_NoAllocs(t *testing.T) {
	if oracle.RaceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	g := oracle.NewRand(97)
	p := unit03.NewPool(2)
	defer p.Close()
	for _, dt := range []unit01.DType{unit01.Q4_0, unit01.Q6_K, unit01.F16, unit01.BF16} {
		m, _ := NewQMatrix(dt, 64, 512, randomBlocks(g, dt, 64*512))
		for _, T := range []int{1, 4, 64} { // decode, and prefill shapes
			x, y := unit03.MatOf(T, 512, g.Normal(T*512, 0, 1)), unit03.NewMat(T, 64)
			for _, pool := range []*unit03.Pool{nil, p} {
				if n := oracle.AllocsPerRun(20, func() { m.MulT(pool, y, x) }); n != 0 {
					t.Errorf("%v MulT of %d rows on %d threads allocates %v times per call, want 0: keep the quantized activations in a reused buffer", dt, T, pool.Threads(), n)
				}
			}
		}
	}
}

// TestC9_4_MulTHalf multiplies by F16 and BF16 matrices, which take their
// own road (SIMD dot kernels for few activation rows, float32 panels and a
// GEMM for many), on every shape that road has an edge for: column counts
// that are not multiples of any vector width or block, row counts that
// are not multiples of four, decode and prefill row counts, strided
// activations and outputs, one thread and two. The activations are rounded
// to the weights' type and each product of two halves is exact in
// float32, so the only error is the float32 sum's: a sum of n terms in any
// order is within n·ε·Σ|w·a| of the exact one.
func TestC9_4_MulTHalf(t *testing.T) {
	g := oracle.NewRand(98)
	p := unit03.NewPool(2)
	defer p.Close()
	for _, dt := range []unit01.DType{unit01.F16, unit01.BF16} {
		for _, cols := range []int{1, 7, 33, 257, 512} {
			for _, rows := range []int{1, 6, 37} {
				data := randomBlocks(g, dt, rows*cols)
				m, err := NewQMatrix(dt, rows, cols, data)
				if err != nil {
					t.Fatal(err)
				}
				wd := oracle.DequantRow(int(dt), data)
				for _, T := range []int{1, 2, 3, 4, 5, 64, 100} {
					for _, pool := range []*unit03.Pool{nil, p} {
						what := fmt.Sprintf("%v QMatrix %d×%d MulT of %d rows on %d threads", dt, rows, cols, T, pool.Threads())
						mulTHalfCase(t, what, g, m, wd, T, pool)
					}
				}
			}
		}
	}
}

// mulTHalfCase runs one case of TestC9_4_MulTHalf: x and y are views into
// wider matrices (strides cols+3 and rows+2), y's padding a sentinel.
func mulTHalfCase(t *testing.T, what string, g *oracle.Rand, m *QMatrix, wd []float64, T int, pool *unit03.Pool) {
	t.Helper()
	rows, cols := m.Rows, m.Cols
	x := unit03.Mat{Rows: T, Cols: cols, Stride: cols + 3, Data: g.Normal(T*(cols+3), 0, 1)}
	y := unit03.Mat{Rows: T, Cols: rows, Stride: rows + 2, Data: make([]float32, T*(rows+2))}
	for i := range y.Data {
		y.Data[i] = -7
	}
	m.MulT(pool, y, x)
	var want, bound []float64
	var got []float32
	for r := range T {
		_, ad := activations(t, m.Type, x.Row(r))
		for j := range rows {
			s, abs := 0.0, 0.0
			for i := range cols {
				s += wd[j*cols+i] * ad[i]
				abs += math.Abs(wd[j*cols+i] * ad[i])
			}
			want, bound = append(want, s), append(bound, float64(cols)*eps32*abs+1e-30)
		}
		got = append(got, y.Row(r)...)
		if y.Data[r*y.Stride+rows] != -7 || y.Data[r*y.Stride+rows+1] != -7 {
			t.Fatalf("%s wrote into y's padding after row %d", what, r)
		}
	}
	oracle.AssertBound(t, what, got, want, bound, []int{T, rows})
}

// TestC9_4_HalfActivations multiplies by an identity matrix in F16 and
// BF16, so that y is exactly the activations as the products see them:
// rounded to the weights' type, ties to even, as llama.cpp rounds them
// (and as QuantizeRow does). A product that skips the rounding, or rounds
// another way, differs on the ties and on values between two halves.
func TestC9_4_HalfActivations(t *testing.T) {
	g := oracle.NewRand(99)
	const n = 300
	x := g.Normal(n, 0, 10)
	for i := 0; i < n; i += 3 { // ties: halfway between two halves of each type
		x[i] = float32(1+float64(i)/n) + 1.0/2048
		x[i+1] = -float32(1+float64(i)/n) - 1.0/256
	}
	x[2], x[5] = 3e-6, -1e-7 // F16 subnormals
	for _, dt := range []unit01.DType{unit01.F16, unit01.BF16} {
		id := unit03.NewMat(n, n)
		for i := range n {
			id.Set(i, i, 1)
		}
		m, err := QuantizeMatrix(dt, id)
		if err != nil {
			t.Fatal(err)
		}
		a, ad := activations(t, dt, x)
		_ = a
		for _, T := range []int{1, 64} { // both roads
			xs, y := unit03.NewMat(T, n), unit03.NewMat(T, n)
			for r := range T {
				copy(xs.Row(r), x)
			}
			m.MulT(nil, y, xs)
			for r := range T {
				for i, v := range y.Row(r) {
					if float64(v) != ad[i] {
						t.Fatalf("%v identity MulT of %d rows: y[%d][%d] = %.9g, want %.9g, x[%d] = %.9g rounded to %v (ties to even): the activations must be rounded to the weights' type first", dt, T, r, i, v, ad[i], i, x[i], dt)
					}
				}
			}
		}
	}
}

// TestC9_4_MulTShapes multiplies by quantized (and F32) matrices of many
// shapes: 1 to 17 weight rows (fewer than one group of four, groups of
// four and rows left over, more than one part of the pool), rows of 1, 3
// and 7 blocks (a fast path's groups of two or four blocks and the blocks
// left over), one and several activation rows, on one, two and three
// threads, with x and y both views into wider matrices. Each y is compared
// with the float64 product of the dequantized weights and activations,
// with TestC9_4_MulT's bound; y's padding must stay untouched.
func TestC9_4_MulTShapes(t *testing.T) {
	g := oracle.NewRand(941)
	p2, p3 := unit03.NewPool(2), unit03.NewPool(3)
	defer p2.Close()
	defer p3.Close()
	for _, dt := range weightTypes {
		if dt == unit01.F16 || dt == unit01.BF16 {
			continue // TestC9_4_MulTHalf
		}
		for _, blocks := range []int{1, 3, 7} {
			cols := blocks * dt.BlockSize()
			if dt == unit01.F32 {
				cols = 8*blocks + 1
			}
			for _, rows := range []int{1, 3, 4, 5, 17} {
				data := randomBlocks(g, dt, rows*cols)
				m, err := NewQMatrix(dt, rows, cols, data)
				if err != nil {
					t.Fatal(err)
				}
				wd := oracle.DequantRow(int(dt), data)
				for _, T := range []int{1, 3} {
					mulTCase(t, g, m, wd, T, nil, p2, p3)
				}
			}
		}
	}
}

// mulTCase runs one case of TestC9_4_MulTShapes on each pool: x and y are
// views into wider matrices (strides cols+5 and rows+2), y's padding a
// sentinel.
func mulTCase(t *testing.T, g *oracle.Rand, m *QMatrix, wd []float64, T int, pools ...*unit03.Pool) {
	t.Helper()
	x := unit03.Mat{Rows: T, Cols: m.Cols, Stride: m.Cols + 5, Data: g.Normal(T*(m.Cols+5), 0, 1)}
	mulTCaseOf(t, m, wd, x, pools...)
}

// mulTCaseOf is mulTCase with the activations x given.
func mulTCaseOf(t *testing.T, m *QMatrix, wd []float64, x unit03.Mat, pools ...*unit03.Pool) {
	t.Helper()
	rows, cols, T := m.Rows, m.Cols, x.Rows
	var want, bound []float64
	blocks := float64(cols / m.Type.BlockSize())
	for r := range T {
		_, ad := activations(t, m.Type, x.Row(r))
		for j := range rows {
			s, abs := 0.0, 0.0
			for i := range cols {
				s += wd[j*cols+i] * ad[i]
				abs += math.Abs(wd[j*cols+i] * ad[i])
			}
			want, bound = append(want, s), append(bound, (4*blocks+64)*eps32*abs+1e-30)
		}
	}
	for _, pool := range pools {
		what := fmt.Sprintf("%v QMatrix %d×%d MulT of %d strided rows on %d threads", m.Type, rows, cols, T, pool.Threads())
		y := unit03.Mat{Rows: T, Cols: rows, Stride: rows + 2, Data: make([]float32, T*(rows+2))}
		for i := range y.Data {
			y.Data[i] = -7
		}
		m.MulT(pool, y, x)
		var got []float32
		for r := range T {
			got = append(got, y.Row(r)...)
			if y.Data[r*y.Stride+rows] != -7 || y.Data[r*y.Stride+rows+1] != -7 {
				t.Fatalf("%s wrote into y's padding after row %d", what, r)
			}
		}
		oracle.AssertBound(t, what, got, want, bound, []int{T, rows})
	}
}

// TestC9_4_UnitActivations: activation blocks whose largest magnitude is
// exactly 1, through MulT for the weight types whose activations are Q8_0.
// The activation scale is then 1/127 and its inverse 127: a check of the
// largest magnitude against anything but 0 before inverting it shows here,
// and nowhere a random row goes.
func TestC9_4_UnitActivations(t *testing.T) {
	g := oracle.NewRand(944)
	const rows, cols, T = 6, 128, 2
	x := unit03.Mat{Rows: T, Cols: cols, Stride: cols, Data: g.Uniform(T*cols, -0.9, 0.9)}
	for o := 0; o < T*cols; o += 32 {
		x.Data[o+g.Intn(32)] = float32(1 - 2*g.Intn(2)) // ±1, the block's largest
	}
	for _, dt := range []unit01.DType{unit01.Q8_0, unit01.Q4_0, unit01.Q5_0} {
		data := randomBlocks(g, dt, rows*cols)
		m, err := NewQMatrix(dt, rows, cols, data)
		if err != nil {
			t.Fatal(err)
		}
		mulTCaseOf(t, m, oracle.DequantRow(int(dt), data), x, nil)
	}
}

// firstMulTEnv names, in a child process of this test binary, the weight
// type and activation rows of the MulT that TestC9_4_FirstMulT runs there.
const firstMulTEnv = "FORGE_UNIT09_FIRST_MULT"

// TestC9_4_FirstMulT runs each weight type's first MulT of a process (3
// activation rows, and 50 for F16 and BF16, whose prefill road starts at
// 48), one thread, in a child process of this test binary: here earlier
// products have left scratch buffers behind, and a buffer grown to a
// wrong size still has room to spare when it is reused. It is new in an
// engine's first prompt.
func TestC9_4_FirstMulT(t *testing.T) {
	if oracle.RaceEnabled {
		t.Skip("a child process per product is slow under the race detector, and the products' races are tested elsewhere")
	}
	if v := os.Getenv(firstMulTEnv); v != "" {
		dt, T, before := 0, 0, -1
		if _, err := fmt.Sscanf(v, "%d,%d,%d", &dt, &T, &before); err != nil {
			t.Fatalf("%s=%q: want a type, a row count and the type of an earlier product (-1 for none)", firstMulTEnv, v)
		}
		const rows, cols = 37, 512
		if before >= 0 {
			m, err := NewQMatrix(unit01.DType(before), rows, cols, randomBlocks(oracle.NewRand(95), unit01.DType(before), rows*cols))
			if err != nil {
				t.Fatal(err)
			}
			m.MulT(nil, unit03.NewMat(T, rows), unit03.MatOf(T, cols, oracle.NewRand(94).Normal(T*cols, 0, 1)))
		}
		data := randomBlocks(oracle.NewRand(96), unit01.DType(dt), rows*cols)
		m, err := NewQMatrix(unit01.DType(dt), rows, cols, data)
		if err != nil {
			t.Fatal(err)
		}
		mulTCase(t, oracle.NewRand(97), m, oracle.DequantRow(dt, data), T, nil)
		return
	}
	for _, dt := range weightTypes {
		counts := []int{3}
		if dt == unit01.F16 || dt == unit01.BF16 {
			counts = append(counts, 50)
		}
		for _, T := range counts {
			if out, ok := oracle.RunChild(t, "TestC9_4_FirstMulT", fmt.Sprintf("%s=%d,%d,-1", firstMulTEnv, int(dt), T)); !ok {
				t.Errorf("%v: the first MulT of a fresh process (37×512 weights, %d activation rows, one thread) failed; the child's output:\n%s", dt, T, out)
			}
		}
	}
	// A buffer left by a product of another type: a Q4_1 product's
	// activations (Q8_0, as Q4_0's) are all a Q4_0 product needs where its
	// weights are not packed, but fewer bytes than where they are (the
	// per-block sums). Q4_1 is never packed.
	if out, ok := oracle.RunChild(t, "TestC9_4_FirstMulT", fmt.Sprintf("%s=%d,%d,%d", firstMulTEnv, int(unit01.Q4_0), 3, int(unit01.Q4_1))); !ok {
		t.Errorf("Q4_0 after Q4_1: MulT in a fresh process (37×512 weights, 3 activation rows, one thread), after one Q4_1 product of the same shape, failed; the child's output:\n%s", out)
	}
}

// TestC9_4_RowChecks reads the first and the last row, and asks for rows
// out of range and for a dst of the wrong length: each must panic
// (unit00.Check). Data is given spare capacity past its last row, so a
// missing range check would read garbage instead of panicking by luck.
func TestC9_4_RowChecks(t *testing.T) {
	g := oracle.NewRand(942)
	const rows, cols = 3, 64
	rb := rowBytes(unit01.Q8_0, cols)
	data := randomBlocks(g, unit01.Q8_0, (rows+1)*cols)[:rows*rb]
	m, err := NewQMatrix(unit01.Q8_0, rows, cols, data)
	if err != nil {
		t.Fatal(err)
	}
	wd := oracle.DequantRow(int(unit01.Q8_0), data)
	for _, i := range []int{0, rows - 1} {
		row := make([]float32, cols)
		m.Row(row, i)
		oracle.AssertBound(t, fmt.Sprintf("Q8_0 QMatrix.Row(%d) of %d rows", i, rows), row, wd[i*cols:(i+1)*cols], scaled(wd[i*cols:(i+1)*cols], 4*eps32, 1e-30), nil)
	}
	for what, f := range map[string]func(){
		"Row(dst, -1)":                   func() { m.Row(make([]float32, cols), -1) },
		"Row(dst, Rows)":                 func() { m.Row(make([]float32, cols), rows) },
		"Row with dst one element short": func() { m.Row(make([]float32, cols-1), 0) },
		"Row with dst one block long":    func() { m.Row(make([]float32, cols+32), 0) },
	} {
		v, panicked := oracle.Panics(f)
		switch {
		case !panicked:
			t.Errorf("QMatrix (%d×%d).%s did not panic: a row index must be in [0, Rows) and dst must hold Cols elements", rows, cols, what)
		case !strings.HasPrefix(fmt.Sprint(v), "check failed at "):
			// An index out of range from further down means the
			// arguments were never checked, and says nothing of which.
			t.Errorf("QMatrix (%d×%d).%s panicked with %q, not through unit00.Check: check the row index and dst's length before using them", rows, cols, what, v)
		}
	}
}

// TestC9_4_MulTChecks gives MulT operands of the wrong shapes (on no pool,
// so a panic reaches the test): each must panic (unit00.Check) before
// reading or writing past an operand.
func TestC9_4_MulTChecks(t *testing.T) {
	g := oracle.NewRand(943)
	for _, dt := range []unit01.DType{unit01.Q4_0, unit01.F16} {
		const rows, cols, T = 8, 64, 2
		m, err := NewQMatrix(dt, rows, cols, randomBlocks(g, dt, rows*cols))
		if err != nil {
			t.Fatal(err)
		}
		for what, shapes := range map[string][4]int{ // x rows, x cols, y rows, y cols
			"x with a block too few columns":  {T, cols - 32, T, rows},
			"x with a block too many columns": {T, cols + 32, T, rows},
			"y with a column too few":         {T, cols, T, rows - 1},
			"y with a column too many":        {T, cols, T, rows + 1},
			"y with a row fewer than x":       {T, cols, T - 1, rows},
			"y with a row more than x":        {T, cols, T + 1, rows},
		} {
			x, y := unit03.NewMat(shapes[0], shapes[1]), unit03.NewMat(shapes[2], shapes[3])
			if _, panicked := oracle.Panics(func() { m.MulT(nil, y, x) }); !panicked {
				t.Errorf("%v QMatrix %d×%d MulT with %s (x %d×%d, y %d×%d) did not panic: x must be T×Cols and y T×Rows", dt, rows, cols, what, shapes[0], shapes[1], shapes[2], shapes[3])
			}
		}
	}
}

// TestC9_4_Errors gives NewQMatrix and QuantizeMatrix the shapes and types
// they must refuse, each with the error class it must wrap.
func TestC9_4_Errors(t *testing.T) {
	for _, c := range []struct {
		dt         unit01.DType
		rows, cols int
		size       int
		kind       error
		what       string
	}{
		{unit01.Q4_0, 3, 0, 0, unit00.ErrInvalid, "no columns"},
		{unit01.Q4_0, 3, -32, 0, unit00.ErrInvalid, "negative columns"},
		{unit01.Q4_0, -1, 32, 0, unit00.ErrInvalid, "negative rows"},
		{unit01.Q4_0, 3, 64, 3*36 + 1, unit00.ErrInvalid, "data one byte long"},
		{unit01.F32, 2, 3, 23, unit00.ErrInvalid, "data one byte short"},
		{unit01.Q5_1, 1, 32, 24, unit00.ErrUnsupported, "a type this unit does not read"},
	} {
		if _, err := NewQMatrix(c.dt, c.rows, c.cols, make([]byte, c.size)); !errors.Is(err, c.kind) {
			t.Errorf("NewQMatrix(%v, %d×%d, %d bytes: %s): error %v, want one wrapping %v", c.dt, c.rows, c.cols, c.size, c.what, err, c.kind)
		}
	}
	w := unit03.NewMat(2, 256)
	for _, c := range []struct {
		dt   unit01.DType
		w    unit03.Mat
		kind error
	}{
		{unit01.Q8_K, w, unit00.ErrUnsupported},
		{unit01.Q2_K, w, unit00.ErrUnsupported},
		{unit01.Q4_0, unit03.NewMat(2, 48), unit00.ErrInvalid},
		{unit01.Q4_K, unit03.NewMat(2, 128), unit00.ErrInvalid},
	} {
		if m, err := QuantizeMatrix(c.dt, c.w); !errors.Is(err, c.kind) || m != nil {
			t.Errorf("QuantizeMatrix(%v, a %d×%d matrix) = %v, %v; want nil and an error wrapping %v", c.dt, c.w.Rows, c.w.Cols, m, err, c.kind)
		}
	}
}

// TestC9_4_Empty multiplies with nothing to do: a matrix of zero rows (an
// empty tensor is valid: no data, and no error), and zero activation rows
// on a well-formed matrix, on no pool and on two threads. Neither may
// panic, and y, having no elements, stays as it was.
func TestC9_4_Empty(t *testing.T) {
	g := oracle.NewRand(944)
	p := unit03.NewPool(2)
	defer p.Close()
	for _, dt := range []unit01.DType{unit01.Q4_0, unit01.Q6_K, unit01.F32, unit01.F16} {
		cols := dt.BlockSize() * 2
		empty, err := NewQMatrix(dt, 0, cols, nil)
		if err != nil {
			t.Fatalf("NewQMatrix(%v, 0×%d, no data): %v, want a valid empty matrix (only negative rows are an error)", dt, cols, err)
		}
		full, err := NewQMatrix(dt, 5, cols, randomBlocks(g, dt, 5*cols))
		if err != nil {
			t.Fatal(err)
		}
		for _, pool := range []*unit03.Pool{nil, p} {
			for what, f := range map[string]func(){
				"a 0-row matrix times 2 activation rows": func() { empty.MulT(pool, unit03.NewMat(2, 0), unit03.NewMat(2, cols)) },
				"a 5-row matrix times 0 activation rows": func() { full.MulT(pool, unit03.NewMat(0, 5), unit03.NewMat(0, cols)) },
			} {
				if v, panicked := oracle.Panics(f); panicked {
					t.Errorf("%v MulT of %s on %d threads panicked (%v): with nothing to compute, compute nothing", dt, what, pool.Threads(), v)
				}
			}
		}
	}
}

// TestC9_4_BatchInvariant: each row of MulT's result depends on its own
// row of activations only, bit for bit, whatever rows share the batch. A
// server decodes many sequences in one MulT and must give each the tokens
// it would get alone (unit13), and a prompt's logits must not change with
// the size of the chunk it was computed in. A kernel that multiplies
// several activation rows at once (a tile) has to sum each product in the
// order the one-row path does. The shapes put rows of x in tiles of eight
// and of four and after them (every T from 2 to 9: a kernel for eight
// rows taken with seven would read a row that is not there), give rows of blocks that fill no group of
// four, one group, and groups with a block left over, and weight rows
// left over after groups of four and of sixteen (37 = 2·16 + 5).
func TestC9_4_BatchInvariant(t *testing.T) {
	g := oracle.NewRand(945)
	p := unit03.NewPool(2)
	defer p.Close()
	for _, dt := range weightTypes {
		shapes := [][2]int{{11, 1}, {11, 4}, {11, 5}, {37, 12}, {20, 33}, {9, 70}}
		if dt.BlockSize() == 1 {
			// Half rows wide enough that a kernel step of 31 or 33
			// elements, not 32, would take another number of steps
			// (1056 = 33·32): the three-row F16 kernel against one row.
			shapes = append(shapes, [2]int{6, 1056})
		}
		for _, shape := range shapes {
			rows, blocks, T := shape[0], shape[1], 9
			cols := blocks * dt.BlockSize()
			m, err := NewQMatrix(dt, rows, cols, randomBlocks(g, dt, rows*cols))
			if err != nil {
				t.Fatal(err)
			}
			x := unit03.Mat{Rows: T, Cols: cols, Stride: cols + 3, Data: g.Normal(T*(cols+3), 0, 1)}
			alone := unit03.NewMat(T, rows)
			for r := range T {
				m.MulT(nil, alone.Block(r, r+1, 0, rows), x.Block(r, r+1, 0, cols))
			}
			for _, n := range []int{2, 3, 4, 5, 6, 7, 8, 9} {
				for _, pool := range []*unit03.Pool{nil, p} {
					y := unit03.Mat{Rows: n, Cols: rows, Stride: rows + 1, Data: make([]float32, n*(rows+1))}
					m.MulT(pool, y, x.Block(0, n, 0, cols))
					for r := range n {
						for j := range rows {
							if got, want := y.At(r, j), alone.At(r, j); math.Float32bits(got) != math.Float32bits(want) {
								t.Fatalf("%v %d×%d MulT of %d rows on %d threads: y[%d][%d] = %v, but %v when row %d is multiplied alone: a row's result must not depend on the rows beside it", dt, rows, cols, n, pool.Threads(), r, j, got, want, r)
							}
						}
					}
				}
			}
		}
	}
}
