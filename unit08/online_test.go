package unit08

import (
	"fmt"
	"math"
	"testing"

	"github.com/llmforge/forge/oracle"
	"github.com/llmforge/forge/unit03"
)

// partialOf is the float64 partial of scores s over the rows of v:
// M = max s, L = Σ e^(s−M), O = Σ e^(s−M)·v.
func partialOf(s []float32, v unit03.Mat) (M, L float64, O []float64) {
	M = math.Inf(-1)
	for _, x := range s {
		M = math.Max(M, float64(x))
	}
	O = make([]float64, v.Cols)
	if math.IsInf(M, -1) {
		return M, 0, O
	}
	for j, x := range s {
		e := math.Exp(float64(x) - M)
		L += e
		for i := range O {
			O[i] += e * float64(v.At(j, i))
		}
	}
	return M, L, O
}

// newPartial returns an empty Partial of width hd.
func newPartial(hd int) *Partial {
	p := &Partial{O: make([]float32, hd)}
	p.Reset()
	return p
}

// addBlocks folds s into p in blocks of the given sizes (the last one
// takes the rest), on copies: Add overwrites its scores.
func addBlocks(p *Partial, s []float32, v unit03.Mat, size int) {
	for a := 0; a < len(s); a += size {
		b := min(a+size, len(s))
		p.Add(append([]float32(nil), s[a:b]...), v.Block(a, b, 0, v.Cols))
	}
}

// checkPartial compares p with the float64 partial of s over v, and its
// Result with softmax(s)·v.
func checkPartial(t *testing.T, what string, p *Partial, s []float32, v unit03.Mat) {
	t.Helper()
	M, L, O := partialOf(s, v)
	if float64(p.M) != M {
		t.Errorf("%s: M = %v, want %v, the largest score", what, p.M, M)
	}
	if !(math.Abs(float64(p.L)-L) <= 1e-5*L) {
		t.Errorf("%s: L = %v, want %v = Σ e^(s−M)", what, p.L, L)
	}
	oracle.AssertClose(t, what+": O = Σ e^(s−M)·v", p.O, O, oracle.Tol{Atol: 1e-5, Rtol: 1e-4})
	out := make([]float32, len(p.O))
	p.Result(out)
	res := make([]float64, len(O))
	for i := range O {
		if L > 0 {
			res[i] = O[i] / L
		}
	}
	oracle.AssertClose(t, what+": Result = O/L", out, res, attentionTol)
}

// TestC8_1_OnlineSoftmax folds rows of scores in blocks of every size
// (one key at a time, blocks that do not divide the row, the whole row)
// and checks M, L, O and the result against the two-pass computation.
func TestC8_1_OnlineSoftmax(t *testing.T) {
	g := oracle.NewRand(81)
	for _, n := range []int{1, 2, 7, 128, 129, 300} {
		for _, hd := range []int{1, 6, 16} {
			s := g.Normal(n, 0, 3)
			v := randMat(g, n, hd)
			for _, size := range []int{1, 3, 50, n} {
				p := newPartial(hd)
				addBlocks(p, s, v, size)
				checkPartial(t, fmt.Sprintf("%d scores in blocks of %d, head width %d", n, size, hd), p, s, v)
			}
		}
	}
}

// TestC8_1_RisingMax: each block's maximum is above everything before it,
// so the running sum and output must be rescaled at every block; falling
// maxima must leave them alone; scores of ±1e4 must not overflow.
func TestC8_1_RisingMax(t *testing.T) {
	g := oracle.NewRand(82)
	v := randMat(g, 9, 5)
	for name, s := range map[string][]float32{
		"rising":    {0, 1, 0.5, 4, 5, 3, 20, 21, 19},
		"falling":   {21, 20, 19, 5, 4, 3, 1, 0.5, 0},
		"±1e4":      {-1e4, 1e4, 0, 9999, -9999, 1e4, 5000, -5000, 9998},
		"one-sided": {-30, -29, -28, -80, -70, -60, -1, -2, -3},
	} {
		p := newPartial(5)
		addBlocks(p, s, v, 3)
		checkPartial(t, fmt.Sprintf("scores %s (%v) in blocks of 3", name, s), p, s, v)
	}
}

// TestC8_1_Masked: a block whose every score is −Inf adds nothing (not
// even to an empty partial: no NaN from −Inf − (−Inf)); a block with some
// −Inf scores gives those keys no weight.
func TestC8_1_Masked(t *testing.T) {
	g := oracle.NewRand(83)
	inf := float32(math.Inf(-1))
	v := randMat(g, 6, 4)
	p := newPartial(4)
	p.Add([]float32{inf, inf, inf}, v.Block(0, 3, 0, 4))
	checkPartial(t, "an empty partial after a fully masked block", p, []float32{inf, inf, inf}, v.Block(0, 3, 0, 4))
	s := []float32{0.5, inf, 2, 1, inf, inf}
	p = newPartial(4)
	addBlocks(p, s, v, 2)
	checkPartial(t, fmt.Sprintf("scores %v in blocks of 2", s), p, s, v)
	before := *p
	before.O = append([]float32(nil), p.O...)
	p.Add([]float32{inf, inf}, v.Block(0, 2, 0, 4))
	if p.M != before.M || p.L != before.L || fmt.Sprint(p.O) != fmt.Sprint(before.O) {
		t.Errorf("a fully masked block changed a partial from (%v, %v, %v) to (%v, %v, %v): it has no keys to add", before.M, before.L, before.O, p.M, p.L, p.O)
	}
}

// TestC8_1_Reset: Reset forgets everything, including a stale O; Result of
// an empty partial is zeros.
func TestC8_1_Reset(t *testing.T) {
	p := &Partial{M: 7, L: 3, O: []float32{1, 2, 3}}
	p.Reset()
	if !math.IsInf(float64(p.M), -1) || p.L != 0 || p.O[0] != 0 || p.O[1] != 0 || p.O[2] != 0 {
		t.Fatalf("after Reset: M %v, L %v, O %v; want -Inf, 0 and zeros", p.M, p.L, p.O)
	}
	out := []float32{9, 9, 9}
	p.Result(out)
	if out[0] != 0 || out[1] != 0 || out[2] != 0 {
		t.Errorf("Result of a partial that saw no key: %v, want zeros", out)
	}
	v := randMat(oracle.NewRand(84), 2, 3)
	p.Add([]float32{1, 2}, v)
	p.Reset()
	p.Add([]float32{0.5}, v.Block(1, 2, 0, 3))
	checkPartial(t, "a partial reset and reused", p, []float32{0.5}, v.Block(1, 2, 0, 3))
}

// TestC8_1_Merge: splitting a row's keys between two partials in any way
// and merging them gives the partial over all of them, whichever has the
// larger maximum; merging an empty partial changes nothing, merging into
// an empty one copies; the merged-in partial is left alone.
func TestC8_1_Merge(t *testing.T) {
	g := oracle.NewRand(85)
	const n, hd = 200, 8
	s := g.Normal(n, 0, 4)
	s[150] = 15 // the largest score in the second part
	v := randMat(g, n, hd)
	for _, cut := range []int{0, 1, 100, 151, 199, n} {
		a, b := newPartial(hd), newPartial(hd)
		addBlocks(a, s[:cut], v.Block(0, cut, 0, hd), 64)
		addBlocks(b, s[cut:], v.Block(cut, n, 0, hd), 64)
		bm, bl, bo := b.M, b.L, append([]float32(nil), b.O...)
		a.Merge(b)
		checkPartial(t, fmt.Sprintf("keys [0, %d) merged with [%d, %d)", cut, cut, n), a, s, v)
		if b.M != bm || b.L != bl || fmt.Sprint(b.O) != fmt.Sprint(bo) {
			t.Errorf("Merge changed the partial merged in: (%v, %v) became (%v, %v)", bm, bl, b.M, b.L)
		}
		// The other way round.
		a2, b2 := newPartial(hd), newPartial(hd)
		addBlocks(a2, s[:cut], v.Block(0, cut, 0, hd), 64)
		addBlocks(b2, s[cut:], v.Block(cut, n, 0, hd), 64)
		b2.Merge(a2)
		checkPartial(t, fmt.Sprintf("keys [%d, %d) merged with [0, %d)", cut, n, cut), b2, s, v)
	}
}

// TestC8_1_Checks: sizes that do not fit panic through unit00.Check.
func TestC8_1_Checks(t *testing.T) {
	v := randMat(oracle.NewRand(86), 4, 3)
	mustPanic(t, "Add of 3 scores for 4 value rows", func() { newPartial(3).Add(make([]float32, 3), v) })
	mustPanic(t, "Add of 5 scores for 4 value rows", func() { newPartial(3).Add(make([]float32, 5), v) })
	mustPanic(t, "Add of values 3 wide into an O of 4", func() { newPartial(4).Add(make([]float32, 4), v) })
	mustPanic(t, "Merge of partials 3 and 4 wide", func() { newPartial(3).Merge(newPartial(4)) })
	mustPanic(t, "Result into 2 floats from an O of 3", func() { newPartial(3).Result(make([]float32, 2)) })
	mustPanic(t, "Result into 4 floats from an O of 3", func() { newPartial(3).Result(make([]float32, 4)) })
}
