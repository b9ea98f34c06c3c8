package checks

import (
	"strings"
	"testing"
)

func TestLegacySSE(t *testing.T) {
	cases := []struct {
		name, src string
		want      int // problems expected
	}{
		{"no wide registers at all", "TEXT ·f(SB), 0, $0\n\tMOVQ AX, X0\n\tADDSS X1, X0\n\tRET\n", 0},
		{"SSE after VZEROUPPER", "TEXT ·f(SB), 0, $0\n\tVADDPS Y0, Y1, Y1\n\tVZEROUPPER\n\tMOVSS X0, ret+8(FP)\n\tRET\n", 0},
		{"SSE before any wide use", "TEXT ·f(SB), 0, $0\n\tMOVD AX, X15\n\tVPBROADCASTB X15, Y15\n\tVZEROUPPER\n\tRET\n", 0},
		{"SSE inside the loop", "TEXT ·f(SB), 0, $0\nloop:\n\tVPADDD Z1, Z2, Z3\n\tMOVQ AX, X8\n\tJNZ loop\n\tVZEROUPPER\n\tRET\n", 1},
		{"SSE in a macro", "#define STEP \\\n\tVPADDD Z1, Z2, Z3 ; \\\n\tMOVQ AX, X8 ; \\\n\tVPINSRQ $1, R12, X8, X8\n", 1},
		{"VEX form in a macro", "#define STEP \\\n\tVMOVQ AX, X8 /* MOVQ AX, X8 */ ; \\\n\tVPADDD Z1, Z2, Z3\n", 0},
		{"SSE store before VZEROUPPER", "TEXT ·f(SB), 0, $0\n\tVADDPS Y0, Y1, Y1\n\tMOVSS X0, ret+8(FP) // too early\n\tVZEROUPPER\n\tRET\n", 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := legacySSE("f_amd64.s", tc.src)
			if len(got) != tc.want {
				t.Errorf("%d problems, want %d:\n%s", len(got), tc.want, strings.Join(got, "\n"))
			}
		})
	}
}
