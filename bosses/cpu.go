package bosses

import (
	"runtime"

	"golang.org/x/sys/cpu"
)

// Has reports whether this machine has the CPU feature a bar needs:
// "avx2" (with FMA), "avx512f", "avx512vnni", "gpu" (a CUDA driver that
// sees a device, unit15's: GPU says) or "" (always true). Unknown names are
// false, so a misspelt Needs shows up as a bar nobody can measure.
func Has(feature string) bool {
	switch feature {
	case "":
		return true
	case "avx2":
		return runtime.GOARCH == "amd64" && cpu.X86.HasAVX2 && cpu.X86.HasFMA
	case "avx512f":
		return runtime.GOARCH == "amd64" && cpu.X86.HasAVX512F
	case "avx512vnni":
		return runtime.GOARCH == "amd64" && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VNNI
	case "gpu":
		return GPU != nil && GPU()
	}
	return false
}

// Class names this machine's class of CPU for the bar matrix in
// docs/README.md: "AVX-512", "AVX2", "arm64" or "pure Go".
func Class() string {
	switch {
	case Has("avx512f"):
		return "AVX-512"
	case Has("avx2"):
		return "AVX2"
	case runtime.GOARCH == "arm64":
		return "arm64"
	}
	return "pure Go"
}

// GPU reports whether a CUDA driver here sees a device. The grader sets it
// (to internal/cuda's Load); it is nil elsewhere, so that this package,
// which every unit's boss imports, does not load the driver's library
// (purego would make every test binary dynamically linked, and unable to
// run under qemu-user).
var GPU func() bool
