package mutation

import "math"

// The CI gate's parameters (internal/ci's mutation step, and the floors
// line a full run prints). See ci/mutation/README.md for the reasoning.
const (
	// CISample mutants are graded per unit: what fits, for every written
	// unit, in the step's time box on two cores. Measured on a 2-core Zen 5
	// with the ten units of 2026-11-26: a mutant costs about 2.3 CPU-seconds
	// (a compile, a link, a test run), a unit's setup (coverage of the
	// reference) 5 to 15 s; 40 per unit took over 13 minutes, 20 took 7m51s
	// (before the setup lost its second run of the reference), 12 fit in
	// about 4.
	CISample = 12
	// CISeed draws the sample. The draw is a hash of each mutant's identity,
	// so the same tree always grades the same mutants.
	CISeed = 1
	// CIAlpha is the chance, per unit, that a fresh sample of a tree whose
	// full score is S falls under S minus the margin: with ten units, 1 in
	// 1000 for the step.
	CIAlpha = 1e-4
	// CIDrop is how far, in points, the sampled score may fall under the
	// sampled score recorded with the floor before the step fails. The
	// sample is deterministic, so on an unchanged tree the two are equal;
	// with 12 mutants one flip is 8.3 points, so a single sampled mutant
	// that was killed and now survives fails the step: a regression of 10
	// points in the full score is caught 72 times in 100, 15 points 86.
	CIDrop = 7
	// CITimebox bounds the step's grading (the units' setups come on top:
	// about two minutes on a cold build cache); each unit gets an equal
	// share of what is left when its turn comes.
	CITimebox = 240 // seconds
)

// BinomialCDF is P(X <= k) for X ~ Binomial(n, p).
func BinomialCDF(k, n int, p float64) float64 {
	if k < 0 {
		return 0
	}
	if k >= n {
		return 1
	}
	sum := 0.0
	for i := 0; i <= k; i++ {
		sum += math.Exp(logChoose(n, i) + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p))
	}
	return math.Min(sum, 1)
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// Margin is how many points under a unit's full score S (percent) the
// score of a sample of n mutants may fall by chance, at most with
// probability alpha: the floor S - Margin is failed by a random sample with
// probability <= alpha. It is the exact binomial lower tail (drawing with
// replacement); drawing without replacement, as the sample does, varies
// less, so the bound is conservative.
func Margin(n int, score, alpha float64) float64 {
	p := score / 100
	if p >= 1 {
		return 0
	}
	// k is the most killed mutants the sample may have while P(X < k) <= alpha.
	k := 0
	for k < n && BinomialCDF(k, n, p) <= alpha {
		k++
	}
	return score - 100*float64(k)/float64(n)
}

// Floor is the floor for a unit whose full run scored score: the score
// less the sampling margin, rounded down to a tenth of a point.
func Floor(n int, score, alpha float64) float64 {
	return math.Floor(10*(score-Margin(n, score, alpha))) / 10
}

// DetectProb is the chance that a sample of n mutants of a unit whose true
// score has fallen to score-drop points scores under floor: how surely the
// floor alone catches a regression of drop points.
func DetectProb(n int, floor, score, drop float64) float64 {
	p := (score - drop) / 100
	// Fails when killed/n < floor/100, that is killed <= ceil(n*floor/100)-1.
	k := int(math.Ceil(float64(n)*floor/100)) - 1
	return BinomialCDF(k, n, p)
}
