// Package kernels holds Forge's CUDA kernels: their CUDA C sources (X.cu)
// and the PTX built from them (X.ptx), which this package embeds, so that a
// Go binary carries its kernels and needs no CUDA toolkit to build or run.
//
// Each X.cu is built by `make ptx` (ci/cuda/ptx.sh) with nvcc -ptx
// -arch=compute_80 into one module, X.ptx: PTX for a virtual architecture,
// which the driver compiles, when cuda.Context.Load loads it, for the GPU
// it runs on (compute capability 8.0 or later: A100, RTX 30xx and 40xx,
// H100, H200). Next to it the build writes X.ptxas.txt, ptxas's registers,
// shared memory and spills per kernel for sm_80 and sm_89, and X.sum, the
// checksums of the three files and the nvcc that built them; this
// package's test checks them without nvcc, so a source edited without
// rebuilding its PTX fails `go test`. `make ptx-check` rebuilds everything
// into a temporary folder and compares it with the committed files.
//
// Every kernel is declared extern "C" in its source, so its entry in the
// PTX, the name cuda.Module.Kernel looks up, is its C name.
//
// The modules:
//   - unit15: the twins of unit15's Go kernels (GEMMs, transposes, flash
//     attention), line for line, and gemm_f16, a tensor-core GEMM measured
//     against cuBLAS.
//   - engine: the kernels of llm's --device cuda (internal/gpu).
package kernels

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

//go:embed *.ptx
var files embed.FS

// PTX returns the text of module name, the PTX built from name.cu, ready
// for cuda.Context.Load. The modules are fixed when the binary is built,
// so a name that is not one of them (Names) is a programming error: PTX
// panics, saying which names there are.
func PTX(name string) string {
	b, err := files.ReadFile(name + ".ptx")
	if err != nil {
		panic(fmt.Sprintf("kernels: no module %q (there are %s)", name, strings.Join(Names(), ", ")))
	}
	return string(b)
}

// Names returns the names of the embedded modules, sorted.
func Names() []string {
	paths, _ := fs.Glob(files, "*.ptx")
	var names []string
	for _, p := range paths {
		names = append(names, strings.TrimSuffix(p, ".ptx"))
	}
	slices.Sort(names)
	return names
}
