package grade

import (
	"strings"
	"testing"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/internal/workbook"
)

// CI has no GPU: a boss that is SKIP only because bars needing one could
// not be measured is accepted; any other SKIP, or a FAIL, is not.
func TestNeedsGPUOnly(t *testing.T) {
	gpu := Figure{Bar: bosses.Bar{Metric: "f16-x-cublas", Needs: "gpu"}, NotHere: "not measured: no GPU"}
	cpu := Figure{Bar: bosses.Bar{Metric: "softmax-bw-%", Needs: "avx512f"}, NotHere: "needs avx512f; this machine is AVX2"}
	met := Figure{Bar: bosses.Bar{Metric: "naive-x-register"}, Found: true, Met: true}
	for _, tc := range []struct {
		what string
		b    BossResult
		want bool
	}{
		{"SKIP for a GPU bar", BossResult{Status: Skip, Figures: []Figure{met, gpu}}, true},
		{"SKIP for a CPU feature", BossResult{Status: Skip, Figures: []Figure{met, cpu, gpu}}, false},
		{"FAIL with a GPU bar not measured", BossResult{Status: Fail, Figures: []Figure{gpu}}, false},
		{"PASS", BossResult{Status: Pass, Figures: []Figure{met}}, false},
	} {
		if got := NeedsGPUOnly(tc.b); got != tc.want {
			t.Errorf("%s: NeedsGPUOnly = %v, want %v", tc.what, got, tc.want)
		}
	}
}

// NextStep tells a learner whose unit passes everything but the tests
// that need a GPU that it is so, and not to hunt for a failure.
func TestNextStepNoGPU(t *testing.T) {
	pass := TestResult{Name: "TestC15_5_Host", Status: Pass}
	noGPU := TestResult{Name: "TestC15_6_Device", Status: Skip, Detail: "device_test.go:321: not measured: no GPU (cuda: no usable CUDA driver)"}
	other := TestResult{Name: "TestC15_6_Other", Status: Skip, Detail: "skipped: short mode"}
	gpuBoss := BossResult{Status: Skip, Figures: []Figure{{Bar: bosses.Bar{Metric: "f16-x-cublas", Needs: "gpu"}, NotHere: "not measured: no GPU"}}}
	unit := func(c15_6 []TestResult, boss *BossResult) UnitResult {
		return UnitResult{Unit: workbook.Unit(15), Boss: boss, Challenges: []ChallengeResult{
			{ID: "15.5", Status: Merge([]TestResult{pass}), Tests: []TestResult{pass}},
			{ID: "15.6", Status: Merge(c15_6), Tests: c15_6},
		}}
	}
	for _, tc := range []struct {
		what string
		r    UnitResult
		want string
	}{
		{"15.6 and the boss need a GPU", unit([]TestResult{pass, noGPU}, &gpuBoss), "15.6 and the boss also need an NVIDIA GPU"},
		{"only 15.6 needs one", unit([]TestResult{noGPU}, &BossResult{Status: Pass}), "15.6 also need an NVIDIA GPU"},
		{"a skip for another reason", unit([]TestResult{pass, noGPU, other}, &gpuBoss), "shows the whole failure"},
	} {
		if got := NextStep(tc.r); !strings.Contains(got, tc.want) {
			t.Errorf("%s: NextStep = %q, want it to say %q", tc.what, got, tc.want)
		}
	}
}

// PassedHere: a unit whose only shortfalls are tests and bars that need a
// GPU passes as far as a machine without one can tell; any other SKIP, a
// failure or a stub does not.
func TestPassedHere(t *testing.T) {
	pass := TestResult{Name: "TestC15_5_Host", Status: Pass}
	noGPU := TestResult{Name: "TestC15_6_Device", Status: Skip, Detail: "not measured: no GPU (cuda: no usable CUDA driver)"}
	other := TestResult{Name: "TestC15_6_Other", Status: Skip, Detail: "skipped: short mode"}
	gpuBoss := BossResult{Status: Skip, Figures: []Figure{{Bar: bosses.Bar{Metric: "f16-x-cublas", Needs: "gpu"}, NotHere: "not measured: no GPU"}}}
	failBoss := BossResult{Status: Fail}
	unit := func(tests []TestResult, boss *BossResult) UnitResult {
		return UnitResult{Unit: workbook.Unit(15), Written: true, Boss: boss, Challenges: []ChallengeResult{{ID: "15.6", Status: Merge(tests), Tests: tests}}}
	}
	for _, tc := range []struct {
		what string
		r    UnitResult
		want bool
	}{
		{"all passed", unit([]TestResult{pass}, &BossResult{Status: Pass}), true},
		{"only GPU skips", unit([]TestResult{pass, noGPU}, &gpuBoss), true},
		{"a skip for another reason", unit([]TestResult{pass, noGPU, other}, &gpuBoss), false},
		{"a boss that fails", unit([]TestResult{pass, noGPU}, &failBoss), false},
		{"a stub", unit([]TestResult{{Name: "TestC15_6_X", Status: Todo}}, nil), false},
		{"not written", UnitResult{Unit: workbook.Unit(15)}, false},
	} {
		if got := PassedHere(tc.r); got != tc.want {
			t.Errorf("%s: PassedHere = %v, want %v", tc.what, got, tc.want)
		}
	}
}
