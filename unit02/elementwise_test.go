package unit02

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit00"
	"github.com/llmforge/forge/unit01"
)

func TestC2_1_BroadcastShape(t *testing.T) {
	tests := []struct{ a, b, want []int }{
		{[]int{2, 3}, []int{2, 3}, []int{2, 3}},
		{[]int{2, 3}, []int{3}, []int{2, 3}},
		{[]int{3}, []int{2, 3}, []int{2, 3}},
		{[]int{4, 1, 3}, []int{5, 1}, []int{4, 5, 3}},
		{[]int{2, 1}, []int{1, 2}, []int{2, 2}},
		{[]int{}, []int{2, 4}, []int{2, 4}},
		{[]int{1}, []int{}, []int{1}},
		{[]int{0, 3}, []int{1, 3}, []int{0, 3}},
	}
	for _, tc := range tests {
		got, err := BroadcastShape(unit01.MustShape(tc.a...), unit01.MustShape(tc.b...))
		if err != nil || fmt.Sprint(dimsOf(got)) != fmt.Sprint(tc.want) {
			t.Errorf("BroadcastShape(%v, %v) = %v, %v; want %v", tc.a, tc.b, got, err, tc.want)
		}
	}
	for _, bad := range [][2][]int{{{2, 3}, {2}}, {{3, 4}, {4, 3}}, {{2, 1, 3}, {4, 3, 3}}} {
		_, err := BroadcastShape(unit01.MustShape(bad[0]...), unit01.MustShape(bad[1]...))
		if !errors.Is(err, unit00.ErrInvalid) {
			t.Errorf("BroadcastShape(%v, %v) error = %v, want unit00.ErrInvalid", bad[0], bad[1], err)
			continue
		}
		for _, s := range bad {
			if !strings.Contains(err.Error(), fmt.Sprint(s)) {
				t.Errorf("BroadcastShape error %q must name both shapes, %v missing", err, s)
			}
		}
	}
}

// operand is a test operand: a way to build a (possibly strided) tensor
// from the data 1, 2, 3, …
type operand struct {
	name string
	make func(t *testing.T) unit01.Tensor
}

func contiguous(dims ...int) operand {
	return operand{fmt.Sprint(dims), func(t *testing.T) unit01.Tensor {
		return tensorOf(t, counting(oracle.Numel(dims)), dims...)
	}}
}

// counting returns 1, 2, …, n: never zero, so Div is defined everywhere.
func counting(n int) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(i+1) * 0.37
	}
	return out
}

func transposed(rows, cols int) operand {
	return operand{fmt.Sprintf("transposed [%d %d]", cols, rows), func(t *testing.T) unit01.Tensor {
		v, err := tensorOf(t, counting(rows*cols), rows, cols).Transpose(0, 1)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}}
}

func columnSlice(rows, cols, lo, hi int) operand {
	return operand{fmt.Sprintf("columns %d:%d of [%d %d]", lo, hi, rows, cols), func(t *testing.T) unit01.Tensor {
		v, err := tensorOf(t, counting(rows*cols), rows, cols).Slice(1, lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}}
}

func TestC2_1_Binary(t *testing.T) {
	pairs := [][2]operand{
		{contiguous(2, 3), contiguous(2, 3)},
		{contiguous(2, 3), contiguous(3)},
		{contiguous(4, 1), contiguous(1, 5)},
		{contiguous(2, 3, 4), contiguous(3, 1)},
		{transposed(3, 4), contiguous(4, 3)},
		{transposed(3, 4), transposed(3, 4)},
		{columnSlice(4, 6, 1, 4), contiguous(3)},
		{contiguous(4, 1), columnSlice(4, 6, 2, 5)},
		{contiguous(), contiguous(2, 2)},
	}
	for _, op := range []Op{Add, Sub, Mul, Div} {
		for _, p := range pairs {
			name := fmt.Sprintf("%v(%s, %s)", op, p[0].name, p[1].name)
			a, b := p[0].make(t), p[1].make(t)
			got, err := Binary(op, a, b)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			shape, _ := BroadcastShape(a.Shape(), b.Shape())
			want := binaryOracle(op, a, b, shape)
			if !got.Shape().Equal(shape) || !got.IsContiguous() {
				t.Fatalf("%s: result shape %v (contiguous %v), want %v contiguous", name, got.Shape(), got.IsContiguous(), shape)
			}
			// +, −, ·, / of float32s rounded once to float32 are within half
			// an ulp of the exact value.
			oracle.AssertCloseShape(t, name, got.F32(), want, dimsOf(shape), oracle.Tol{Rtol: eps32})
		}
	}
	if _, err := Binary(Add, tensorOf(t, counting(6), 2, 3), tensorOf(t, counting(2), 2)); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("Binary of [2 3] and [2]: error = %v, want unit00.ErrInvalid", err)
	}
	h, _ := unit01.Zeros(unit01.F16, unit01.MustShape(3))
	if _, err := Binary(Add, h, h); !errors.Is(err, unit00.ErrUnsupported) {
		t.Errorf("Binary of F16 tensors: error = %v, want unit00.ErrUnsupported", err)
	}
}

// binaryOracle computes op elementwise in float64 over the broadcast shape.
func binaryOracle(op Op, a, b unit01.Tensor, shape unit01.Shape) []float64 {
	to := dimsOf(shape)
	x := oracle.BroadcastTo(valuesOf(a), dimsOf(a.Shape()), to)
	y := oracle.BroadcastTo(valuesOf(b), dimsOf(b.Shape()), to)
	out := make([]float64, len(x))
	for i := range out {
		switch op {
		case Add:
			out[i] = x[i] + y[i]
		case Sub:
			out[i] = x[i] - y[i]
		case Mul:
			out[i] = x[i] * y[i]
		case Div:
			out[i] = x[i] / y[i]
		}
	}
	return out
}

func TestC2_1_BinaryInto(t *testing.T) {
	a := tensorOf(t, counting(12), 3, 4)
	b := tensorOf(t, counting(4), 4)
	want := binaryOracle(Mul, a, b, a.Shape())
	if err := BinaryInto(Mul, a, a, b); err != nil {
		t.Fatalf("BinaryInto in place: %v", err)
	}
	oracle.AssertClose(t, "BinaryInto(Mul, a, a, b) in place", a.F32(), want, oracle.Tol{Rtol: eps32})

	dst := tensorOf(t, make([]float32, 6), 2, 3)
	if err := BinaryInto(Add, dst, tensorOf(t, counting(6), 3, 2), tensorOf(t, counting(6), 3, 2)); !errors.Is(err, unit00.ErrInvalid) {
		t.Errorf("BinaryInto a [2 3] destination for [3 2] operands: error = %v, want unit00.ErrInvalid", err)
	}
	// Strided destination: write into the transpose of a [4 3] tensor.
	base := tensorOf(t, make([]float32, 12), 4, 3)
	view, _ := base.Transpose(0, 1)
	if err := BinaryInto(Sub, view, tensorOf(t, counting(12), 3, 4), tensorOf(t, counting(1), 1)); err != nil {
		t.Fatalf("BinaryInto a transposed destination: %v", err)
	}
	oracle.AssertCloseShape(t, "BinaryInto a transposed destination", float32sOf(valuesOf(view)),
		binaryOracle(Sub, tensorOf(t, counting(12), 3, 4), tensorOf(t, counting(1), 1), view.Shape()), []int{3, 4}, oracle.Tol{Rtol: eps32})

	x, y := tensorOf(t, counting(64), 8, 8), tensorOf(t, counting(8), 8)
	xt, _ := x.Transpose(0, 1)
	out := tensorOf(t, make([]float32, 64), 8, 8)
	for _, c := range []struct {
		name string
		a, b unit01.Tensor
	}{{"contiguous", x, x}, {"broadcast", x, y}, {"transposed", xt, y}} {
		if n := testing.AllocsPerRun(50, func() { BinaryInto(Add, out, c.a, c.b) }); n != 0 {
			t.Errorf("BinaryInto (%s operands) made %v heap allocations; it must make none", c.name, n)
		}
	}
}

func float32sOf(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

func TestC2_1_Scalar(t *testing.T) {
	a, _ := tensorOf(t, counting(6), 2, 3).Transpose(0, 1)
	for _, op := range []Op{Add, Sub, Mul, Div} {
		got, err := Scalar(op, a, 2.5)
		if err != nil {
			t.Fatalf("Scalar(%v): %v", op, err)
		}
		want := binaryOracle(op, a, tensorOf(t, []float32{2.5}), a.Shape())
		oracle.AssertClose(t, fmt.Sprintf("Scalar(%v, transposed [3 2], 2.5)", op), got.F32(), want, oracle.Tol{Rtol: eps32})
	}
}

func TestC2_1_Slices(t *testing.T) {
	g := oracle.NewRand(21)
	for _, n := range lengths {
		a, b := g.Normal(n, 0, 1), g.Normal(n, 0, 1)
		wantAdd, wantMul := make([]float64, n), make([]float64, n)
		for i := range a {
			wantAdd[i] = float64(a[i]) + float64(b[i])
			wantMul[i] = float64(a[i]) * float64(b[i])
		}
		dst := make([]float32, n)
		AddSlices(dst, a, b)
		oracle.AssertClose(t, fmt.Sprintf("AddSlices (n=%d)", n), dst, wantAdd, oracle.Tol{Rtol: eps32})
		MulSlices(a, a, b) // in place
		oracle.AssertClose(t, fmt.Sprintf("MulSlices in place (n=%d)", n), a, wantMul, oracle.Tol{Rtol: eps32})
	}
	if _, panicked := oracle.Panics(func() { AddSlices(make([]float32, 3), make([]float32, 3), make([]float32, 2)) }); !panicked {
		t.Errorf("AddSlices with slices of different lengths did not panic")
	}
}

func TestC2_1_SliceChecks(t *testing.T) {
	// Each slice too long or too short on its own: a check of one length
	// against another is not enough, and a loop over dst runs happily over
	// a longer a or b.
	for _, f := range []struct {
		name string
		f    func(dst, a, b []float32)
	}{{"AddSlices", AddSlices}, {"MulSlices", MulSlices}} {
		for _, n := range [][3]int{{3, 4, 3}, {3, 3, 4}, {4, 3, 3}, {3, 2, 3}, {3, 3, 2}, {2, 3, 3}, {0, 1, 0}, {0, 0, 1}} {
			what := fmt.Sprintf("%s(dst of %d, a of %d, b of %d)", f.name, n[0], n[1], n[2])
			mustCheckPanic(t, what, func() { f.f(make([]float32, n[0]), make([]float32, n[1]), make([]float32, n[2])) })
		}
		if _, panicked := oracle.Panics(func() { f.f(nil, nil, nil) }); panicked {
			t.Errorf("%s of three empty slices panicked: empty is a valid length", f.name)
		}
	}
}

func TestC2_1_BinaryChecks(t *testing.T) {
	f32 := func(dims ...int) unit01.Tensor { return tensorOf(t, counting(oracle.Numel(dims)), dims...) }
	f16 := func(dims ...int) unit01.Tensor {
		h, err := unit01.Zeros(unit01.F16, unit01.MustShape(dims...))
		require.NoError(t, err)
		return h
	}
	for _, c := range []struct {
		name      string
		dst, a, b unit01.Tensor
		want      error
	}{
		{"an F16 destination", f16(2, 3), f32(2, 3), f32(2, 3), unit00.ErrUnsupported},
		{"an F16 first operand", f32(2, 3), f16(2, 3), f32(2, 3), unit00.ErrUnsupported},
		{"an F16 second operand", f32(2, 3), f32(2, 3), f16(2, 3), unit00.ErrUnsupported},
		{"operands [2 3] and [2] that do not broadcast", f32(2, 3), f32(2, 3), f32(2), unit00.ErrInvalid},
		{"a [6] destination for [2 3] operands", f32(6), f32(2, 3), f32(3), unit00.ErrInvalid},
		{"a [1 2 3] destination for [2 3] operands", f32(1, 2, 3), f32(2, 3), f32(3), unit00.ErrInvalid},
		{"a [2 1] destination for [2 3] operands", f32(2, 1), f32(2, 3), f32(2, 1), unit00.ErrInvalid},
	} {
		before := append([]float32(nil), c.dst.Storage().Float32s()...)
		what := "BinaryInto with " + c.name
		err := noPanic(t, what, func() error { return BinaryInto(Add, c.dst, c.a, c.b) })
		require.ErrorIs(t, err, c.want, what)
		if c.dst.DType() == unit01.F32 {
			require.Empty(t, cmp.Diff(before, c.dst.F32()), "BinaryInto with %s returned an error but wrote into dst (-before +after)", c.name)
		}
	}
	// Zero-sized operands are valid: an empty result, on both paths.
	for _, p := range [][2]operand{{contiguous(0, 3), contiguous(3)}, {transposed(3, 0), contiguous(1, 3)}} {
		var got unit01.Tensor
		what := fmt.Sprintf("Binary(Mul, %s, %s)", p[0].name, p[1].name)
		err := noPanic(t, what, func() (err error) { got, err = Binary(Mul, p[0].make(t), p[1].make(t)); return err })
		require.NoError(t, err, what)
		if want := unit01.MustShape(0, 3); !got.Shape().Equal(want) {
			t.Errorf("Binary(Mul, %s, %s) has shape %v, want %v", p[0].name, p[1].name, got.Shape(), want)
		}
	}
}

// TestC2_1_BinaryRandom checks Binary and BinaryInto on random
// configurations: random ranks and extents, operands broadcast along random
// axes (extent 1 or a missing leading axis), built as permuted or sliced views
// of larger tensors, and destinations that are permuted views themselves.
func TestC2_1_BinaryRandom(t *testing.T) {
	g := oracle.NewRand(25)
	for trial := 0; trial < 300; trial++ {
		rank := 1 + g.Intn(4)
		dims := make([]int, rank)
		for i := range dims {
			dims[i] = 1 + g.Intn(5)
		}
		a, b := randomOperand(t, g, dims), randomOperand(t, g, dims)
		op := Op(g.Intn(4))
		name := fmt.Sprintf("trial %d: %v(%s, %s)", trial, op, a.name, b.name)
		at, bt := a.make(t), b.make(t)
		shape, err := BroadcastShape(at.Shape(), bt.Shape())
		require.NoError(t, err, name)
		want := binaryOracle(op, at, bt, shape)
		var got unit01.Tensor
		err = noPanic(t, "Binary "+name, func() (err error) { got, err = Binary(op, at, bt); return err })
		require.NoError(t, err, name)
		oracle.AssertCloseShape(t, "Binary "+name, got.F32(), want, dimsOf(shape), oracle.Tol{Rtol: eps32})

		// Into a destination whose axes are stored in reverse order.
		rev := dimsOf(shape)
		for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
			rev[i], rev[j] = rev[j], rev[i]
		}
		perm := make([]int, len(rev))
		for i := range perm {
			perm[i] = len(rev) - 1 - i
		}
		dst, err := tensorOf(t, make([]float32, oracle.Numel(rev)), rev...).Permute(perm...)
		require.NoError(t, err)
		require.NoError(t, noPanic(t, "BinaryInto "+name, func() error { return BinaryInto(op, dst, at, bt) }), name)
		oracle.AssertCloseShape(t, "BinaryInto a permuted destination, "+name, float32sOf(valuesOf(dst)), want, dimsOf(shape), oracle.Tol{Rtol: eps32})
	}
}

// randomOperand returns an operand that broadcasts to dims: some leading
// axes dropped, some extents set to 1, stored contiguously, permuted or as a
// slice of a larger tensor.
func randomOperand(t *testing.T, g *oracle.Rand, dims []int) operand {
	d := append([]int(nil), dims[g.Intn(len(dims)+1):]...)
	for i := range d {
		if g.Intn(3) == 0 {
			d[i] = 1
		}
	}
	switch kind := g.Intn(3); {
	case kind == 1 && len(d) >= 2: // stored with the axes reversed
		return operand{fmt.Sprintf("permuted %v", d), func(t *testing.T) unit01.Tensor {
			rev, perm := make([]int, len(d)), make([]int, len(d))
			for i := range d {
				rev[i], perm[i] = d[len(d)-1-i], len(d)-1-i
			}
			v, err := tensorOf(t, counting(oracle.Numel(rev)), rev...).Permute(perm...)
			require.NoError(t, err)
			return v
		}}
	case kind == 2 && len(d) >= 1: // the middle of a longer axis
		ax := g.Intn(len(d))
		return operand{fmt.Sprintf("%v sliced from axis %d", d, ax), func(t *testing.T) unit01.Tensor {
			big := append([]int(nil), d...)
			big[ax] += 3
			v, err := tensorOf(t, counting(oracle.Numel(big)), big...).Slice(ax, 2, 2+d[ax])
			require.NoError(t, err)
			return v
		}}
	}
	return contiguous(d...)
}
