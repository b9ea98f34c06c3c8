package unit01

import (
	"math"
	"testing"

	"github.com/llmforge/forge/oracle"
)

func TestC1_4_F16ToF32(t *testing.T) {
	bad := 0
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		got := F16ToF32(h)
		want := oracle.F16Value(h)
		if math.IsNaN(want) {
			// A NaN keeps its sign and payload, moved up to float32's mantissa.
			wantBits := uint32(h&0x8000)<<16 | 0x7f800000 | uint32(h&0x3ff)<<13
			if math.Float32bits(got) != wantBits {
				bad++
				if bad <= 3 {
					t.Errorf("F16ToF32(0x%04x) (a NaN) = 0x%08x, want 0x%08x: a NaN keeps its sign and payload", h, math.Float32bits(got), wantBits)
				}
			}
			continue
		}
		if float64(got) != want || math.Signbit(float64(got)) != math.Signbit(want) {
			bad++
			if bad <= 3 {
				t.Errorf("F16ToF32(0x%04x) = %g (0x%08x), want %g%s", h, got, math.Float32bits(got), want, halfHint(h))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of 65536 halves converted wrongly", bad)
	}
}

// halfHint names the class of a half, to point at the branch that is wrong.
func halfHint(h uint16) string {
	switch exp := h >> 10 & 0x1f; {
	case exp == 0 && h&0x3ff != 0:
		return " (a subnormal half: value = mantissa · 2^-24)"
	case exp == 0:
		return " (a signed zero)"
	case exp == 0x1f:
		return " (an infinity)"
	}
	return " (a normal half: rebias the exponent by 127 − 15)"
}

// f16Inputs returns, for every finite half, the float32 values where its
// rounding is decided: the half itself, the midpoint to the next half up,
// and the float32 just below and above that midpoint; with both signs.
func f16Inputs() []float32 {
	var in []float32
	for h := uint16(0); h < 0x7c00; h++ {
		v := oracle.F16Value(h)
		next := oracle.F16Value(h + 1) // for 0x7bff this is +Inf: use 65536, the next binade
		if h == 0x7bff {
			next = 65536
		}
		m := float32((v + next) / 2) // exact: one bit more than a half holds
		for _, x := range []float32{float32(v), m, math.Nextafter32(m, 0), math.Nextafter32(m, math.MaxFloat32)} {
			in = append(in, x, -x)
		}
	}
	return in
}

func TestC1_4_F32ToF16(t *testing.T) {
	in := f16Inputs()
	in = append(in, oracle.Specials()...)
	in = append(in, oracle.NewRand(14).Bits(200000)...)
	for _, nan := range []uint32{0x7fc00000, 0x7f800001, 0xff800001, 0x7fbfffff, 0x7fe00000, 0xffc12345} {
		in = append(in, math.Float32frombits(nan))
	}
	in = append(in, 1e-10, -1e-10, 65519.99, 65520, 1e6, -1e6, 5.960464e-8, 2.9802322e-8, 2.9802326e-8)
	bad := 0
	for _, f := range in {
		got, want := F32ToF16(f), oracle.F16FromFloat32(f)
		if got != want {
			bad++
			if bad <= 3 {
				t.Errorf("F32ToF16(%g = 0x%08x) = 0x%04x (%g), want 0x%04x (%g)%s",
					f, math.Float32bits(f), got, oracle.F16Value(got), want, oracle.F16Value(want), f16Hint(f, got, want))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d float32 inputs converted wrongly", bad, len(in))
	}
	t.Run("round trip", func(t *testing.T) {
		for i := 0; i < 1<<16; i++ {
			h := uint16(i)
			want := h
			if h&0x7c00 == 0x7c00 && h&0x3ff != 0 {
				want = h | 0x200 // a NaN comes back quiet
			}
			if got := F32ToF16(F16ToF32(h)); got != want {
				t.Fatalf("F32ToF16(F16ToF32(0x%04x)) = 0x%04x, want 0x%04x: every half must survive the trip", h, got, want)
			}
		}
	})
}

// f16Hint guesses the mistake behind a wrong conversion.
func f16Hint(f float32, got, want uint16) string {
	a := math.Abs(float64(f))
	switch {
	case f != f:
		return ": a NaN must stay a NaN (keep the top payload bits and set the quiet bit 0x200)"
	case want&0x7fff == 0x7c00 && !math.IsInf(float64(f), 0):
		return ": values from 65520 up round to infinity"
	case a < 6.103515625e-05 && a != 0:
		return ": below 2^-14 the result is a subnormal half (or zero), rounded to nearest even"
	case got+1 == want || got == want+1:
		if got == uint16(math.Float32bits(f)>>13&0x3ff)|want&0xfc00 {
			return ": this looks like truncation; round to nearest, ties to even"
		}
		return ": off by one unit in the last place; check round to nearest, ties to even"
	}
	return ""
}

func TestC1_4_BF16(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		b := uint16(i)
		got, want := BF16ToF32(b), oracle.BF16Value(b)
		if math.IsNaN(want) {
			if !math.IsNaN(float64(got)) {
				t.Fatalf("BF16ToF32(0x%04x) (a NaN) = %g", b, got)
			}
			continue
		}
		if float64(got) != want || math.Signbit(float64(got)) != math.Signbit(want) {
			t.Fatalf("BF16ToF32(0x%04x) = %g, want %g: bfloat16 is the top half of a float32", b, got, want)
		}
	}
	var in []float32
	for b := uint16(0); b < 0x7f80; b++ {
		v, next := oracle.BF16Value(b), oracle.BF16Value(b+1)
		if b == 0x7f7f {
			next = math.Ldexp(1, 128)
		}
		m := float32((v + next) / 2)
		for _, x := range []float32{float32(v), m, math.Nextafter32(m, 0), math.Nextafter32(m, math.MaxFloat32)} {
			in = append(in, x, -x)
		}
	}
	in = append(in, oracle.Specials()...)
	in = append(in, oracle.NewRand(16).Bits(200000)...)
	for _, nan := range []uint32{0x7fc00000, 0x7f800001, 0xff800001, 0x7f80ffff, 0x7fff0000} {
		in = append(in, math.Float32frombits(nan))
	}
	bad := 0
	for _, f := range in {
		got, want := F32ToBF16(f), oracle.BF16FromFloat32(f)
		if got != want {
			bad++
			if bad <= 3 {
				hint := ""
				if f != f {
					hint = ": a NaN must stay a NaN; cutting a NaN whose payload sits in the low 16 bits leaves an infinity (set the quiet bit 0x40)"
				} else if got == uint16(math.Float32bits(f)>>16) {
					hint = ": this is truncation; round to nearest, ties to even"
				}
				t.Errorf("F32ToBF16(%g = 0x%08x) = 0x%04x, want 0x%04x%s", f, math.Float32bits(f), got, want, hint)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d float32 inputs converted wrongly", bad, len(in))
	}
}

// TestC1_4_TensorAccess checks that At and Set convert F16 and BF16 elements
// with the conversions of this challenge.
func TestC1_4_TensorAccess(t *testing.T) {
	for _, tc := range []struct {
		dt       DType
		in, want float32
	}{{F16, 1.1, 1.0996094}, {BF16, 1.1, 1.1015625}, {F16, -65504, -65504}, {F16, 1e6, float32(math.Inf(1))}} {
		x, _ := Zeros(tc.dt, MustShape(2, 2))
		x.Set(tc.in, 1, 0)
		if got := x.At(1, 0); got != tc.want {
			t.Errorf("%v: Set(%v) then At = %v, want %v (rounded to the type)", tc.dt, tc.in, got, tc.want)
		}
		if got := x.At(0, 1); got != 0 {
			t.Errorf("%v: Set at [1 0] changed [0 1] to %v", tc.dt, got)
		}
		if b := x.Storage().Bytes(); b[4] == 0 && b[5] == 0 {
			t.Errorf("%v: Set at [1 0] must write the 2-byte element 2 (bytes 4..5), got % x", tc.dt, b)
		}
	}
}
