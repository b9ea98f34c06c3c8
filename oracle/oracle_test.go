package oracle

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	d := Compare([]float32{1, 2.5, float32(math.NaN()), 4}, []float64{1, 2, 3, 4.0001}, Tol{Atol: 0.1, Rtol: 0})
	if d.Bad != 2 || d.Worst != 2 || !math.IsInf(d.Budget, 1) {
		t.Errorf("Compare: bad %d worst %d budget %v; want 2 bad, worst at the NaN with an infinite budget", d.Bad, d.Worst, d.Budget)
	}
	s := Compare([]float32{1, 2}, []float64{1, 2, 3}, Tol{})
	if s.OK() {
		t.Error("a length mismatch must not be OK")
	}
	inf := Compare([]float32{float32(math.Inf(1))}, []float64{math.Inf(1)}, Tol{})
	if !inf.OK() || inf.Budget != 0 {
		t.Errorf("equal infinities: %+v", inf)
	}
	msg := Compare([]float32{0, 0, 0, 0, 0, 1.5}, []float64{0, 0, 0, 0, 0, 1}, Tol{Atol: 0.25}).format([]int{2, 3})
	if !strings.Contains(msg, "1 of 6 elements") || !strings.Contains(msg, "[1,2]") || !strings.Contains(msg, "200% of its budget") {
		t.Errorf("message %q must count the bad elements, give the worst as a multi-index and the budget share", msg)
	}
}

func TestHalfReferences(t *testing.T) {
	vals := map[uint16]float64{0x3c00: 1, 0xc000: -2, 0x7bff: 65504, 0x0001: math.Ldexp(1, -24), 0x0400: math.Ldexp(1, -14), 0x3555: 0.333251953125}
	for h, v := range vals {
		if got := F16Value(h); got != v {
			t.Errorf("F16Value(0x%04x) = %v, want %v", h, got, v)
		}
	}
	if !math.IsInf(F16Value(0x7c00), 1) || !math.IsNaN(F16Value(0x7e00)) {
		t.Error("F16Value of infinity or NaN")
	}
	rounds := map[float32]uint16{
		1: 0x3c00, 65504: 0x7bff, 65519: 0x7bff, 65520: 0x7c00, 1e9: 0x7c00,
		float32(math.Ldexp(1, -25)): 0x0000, float32(math.Ldexp(1.5, -25)): 0x0001, float32(math.Ldexp(3, -25)): 0x0002,
		1 + float32(math.Ldexp(1, -11)): 0x3c00, 1 + float32(math.Ldexp(3, -11)): 0x3c02, -0.1: 0xae66,
	}
	for f, h := range rounds {
		if got := F16FromFloat32(f); got != h {
			t.Errorf("F16FromFloat32(%g) = 0x%04x, want 0x%04x", f, got, h)
		}
	}
	if got := F16FromFloat32(math.Float32frombits(0x7f800001)); got != 0x7e00 {
		t.Errorf("a signaling NaN with a low payload: 0x%04x, want the quiet NaN 0x7e00", got)
	}
	if BF16Value(0x3f80) != 1 || BF16FromFloat32(1.00390625) != 0x3f80 || BF16FromFloat32(1.01171875) != 0x3f82 {
		t.Error("bfloat16 references: 1.00390625 is a tie that rounds down to even, 1.01171875 a tie that rounds up to even")
	}
	if BF16FromFloat32(math.MaxFloat32) != 0x7f80 || BF16FromFloat32(math.Float32frombits(0x7f800001)) != 0x7fc0 {
		t.Error("bfloat16 references: overflow to infinity, NaN stays NaN")
	}
}

func TestViews(t *testing.T) {
	data := Iota(6) // [[0 1 2] [3 4 5]]
	tr, shape := Permute(data, []int{2, 3}, []int{1, 0})
	if fmt.Sprint(tr, shape) != "[0 3 1 4 2 5] [3 2]" {
		t.Errorf("Permute = %v %v", tr, shape)
	}
	sl, shape := SliceAxis(data, []int{2, 3}, 1, 1, 3)
	if fmt.Sprint(sl, shape) != "[1 2 4 5] [2 2]" {
		t.Errorf("SliceAxis = %v %v", sl, shape)
	}
	if b := BroadcastTo([]float64{7, 8}, []int{2, 1}, []int{2, 2, 3}); fmt.Sprint(b) != "[7 7 7 8 8 8 7 7 7 8 8 8]" {
		t.Errorf("BroadcastTo = %v", b)
	}
	if FormatIndex(5, []int{2, 3}) != "[1,2]" || FormatIndex(5, nil) != "[5]" {
		t.Errorf("FormatIndex")
	}
}

func TestPanics(t *testing.T) {
	if v, p := Panics(func() { panic("boom") }); !p || v != "boom" {
		t.Errorf("Panics = %v, %v", v, p)
	}
	if _, p := Panics(func() {}); p {
		t.Error("Panics reported a panic that did not happen")
	}
	defer func() {
		if v := recover(); !IsTODO(v) {
			t.Errorf("a TODO panic must pass through Panics, got %v", v)
		}
	}()
	Panics(func() { panic("TODO(1.1): write it, see docs/unit01.md") })
	t.Error("Panics swallowed a TODO panic")
}

func TestRand(t *testing.T) {
	a, b := NewRand(7).Normal(5, 0, 1), NewRand(7).Normal(5, 0, 1)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Error("the same seed must give the same data")
	}
	for _, x := range NewRand(3).Adversarial(1000) {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			t.Fatalf("Adversarial returned a non-finite value %v", x)
		}
	}
}
