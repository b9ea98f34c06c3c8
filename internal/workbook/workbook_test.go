package workbook

import "testing"

func TestIsGiven(t *testing.T) {
	tests := map[string]bool{
		"errors_given.go": true, "dtype_given.go": true, "dtype_given_amd64.go": true,
		"kernels_given_amd64.s": true, "cpu_given_linux_arm64.go": true, "x_given_test.go": true,
		// One naming rule only: the old given*.go prefix no longer counts.
		"given.go": false, "given_types.go": false, "given2.go": false,
		"tensor.go": false, "forgiven.go": false, "view_amd64.s": false, "x_given_extra.go": false,
	}
	for name, want := range tests {
		if got := IsGiven(name); got != want {
			t.Errorf("IsGiven(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestIsImpl(t *testing.T) {
	tests := map[string]bool{
		"tensor.go": true, "gemm_amd64.s": true, "textflag.h": true,
		"tensor_test.go": false, "errors_given.go": false, "README.md": false, "data.bin": false,
	}
	for name, want := range tests {
		if got := IsImpl(name); got != want {
			t.Errorf("IsImpl(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestParseUnit(t *testing.T) {
	for in, want := range map[string]Unit{"3": 3, "03": 3, "unit03": 3, "15": 15, "0": 0} {
		if got, err := ParseUnit(in); err != nil || got != want {
			t.Errorf("ParseUnit(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"16", "-1", "x", "unit", "unit3a", ""} {
		if _, err := ParseUnit(bad); err == nil {
			t.Errorf("ParseUnit(%q) accepted a unit that does not exist", bad)
		}
	}
	if Unit(3).Dir() != "unit03" || Unit(3).ImportPath() != Module+"/unit03" {
		t.Errorf("Unit(3) names: %s %s", Unit(3).Dir(), Unit(3).ImportPath())
	}
}
