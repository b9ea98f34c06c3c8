package ci

import (
	"testing"

	"github.com/llmforge/forge/bosses"
	"github.com/llmforge/forge/internal/grade"
)

// CI has no GPU: a boss that is SKIP only because bars needing one could
// not be measured is accepted; any other SKIP, or a FAIL, is not.
func TestOnlyNoGPU(t *testing.T) {
	gpu := grade.Figure{Bar: bosses.Bar{Metric: "f16-x-cublas", Needs: "gpu"}, NotHere: "not measured: no GPU"}
	cpu := grade.Figure{Bar: bosses.Bar{Metric: "softmax-bw-%", Needs: "avx512f"}, NotHere: "needs avx512f; this machine is AVX2"}
	met := grade.Figure{Bar: bosses.Bar{Metric: "naive-x-register"}, Found: true, Met: true}
	for _, tc := range []struct {
		what string
		b    grade.BossResult
		want bool
	}{
		{"SKIP for a GPU bar", grade.BossResult{Status: grade.Skip, Figures: []grade.Figure{met, gpu}}, true},
		{"SKIP for a CPU feature", grade.BossResult{Status: grade.Skip, Figures: []grade.Figure{met, cpu, gpu}}, false},
		{"FAIL with a GPU bar not measured", grade.BossResult{Status: grade.Fail, Figures: []grade.Figure{gpu}}, false},
		{"PASS", grade.BossResult{Status: grade.Pass, Figures: []grade.Figure{met}}, false},
	} {
		if got := onlyNoGPU(tc.b); got != tc.want {
			t.Errorf("%s: onlyNoGPU = %v, want %v", tc.what, got, tc.want)
		}
	}
}
