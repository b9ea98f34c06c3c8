package unit15

import (
	"os"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/unit00"
)

// figures is a module's ptxas figures as `make ptx` writes them, with a
// comment, a blank line and fields out of their usual order.
const figures = `# ptxas -v on a module
flash_attention sm_80 regs=46 smem=0 stack=0 spill=0
flash_attention sm_89 regs=40 smem=0 stack=0 spill=0

gemm_tiled sm_80 smem=1024 regs=32 spill=8 stack=16
`

func TestC15_6_ParseResources(t *testing.T) {
	got, err := ParseResources(figures)
	require.NoError(t, err)
	want := []Resources{
		{Kernel: "flash_attention", Arch: "sm_80", Registers: 46},
		{Kernel: "flash_attention", Arch: "sm_89", Registers: 40},
		{Kernel: "gemm_tiled", Arch: "sm_80", Registers: 32, SharedBytes: 1024, StackBytes: 16, SpillBytes: 8},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseResources (-want +got):\n%s", diff)
	}
	got, err = ParseResources("\n# nothing but a comment\n")
	require.NoError(t, err, "a text with no figures")
	require.Empty(t, got, "a text with no figures")
	got, err = ParseResources("k sm_86 regs=2147483647 smem=0 stack=0 spill=0")
	require.NoError(t, err, "regs=2³¹−1, without a final newline")
	require.Equal(t, 1<<31-1, got[0].Registers)

	for _, tc := range []struct{ what, text, line string }{
		{"no architecture", "gemm_naive", "line 1"},
		{"an architecture that is not sm_NN", "gemm_naive compute_80 regs=1 smem=0 stack=0 spill=0", "line 1"},
		{"sm_ and no number", "gemm_naive sm_ regs=1 smem=0 stack=0 spill=0", "line 1"},
		{"sm_ and not a number", "gemm_naive sm_8x regs=1 smem=0 stack=0 spill=0", "line 1"},
		{"a field missing", "# x\ngemm_naive sm_80 regs=1 smem=0 stack=0", "line 2"},
		{"every field missing", "gemm_naive sm_80", "want all of regs, smem, stack and spill"},
		{"a field twice", "gemm_naive sm_80 regs=1 regs=2 smem=0 stack=0 spill=0", "line 1"},
		{"an unknown field", "gemm_naive sm_80 regs=1 smem=0 stack=0 spill=0 lmem=0", "line 1"},
		{"a field with no value", "gemm_naive sm_80 regs smem=0 stack=0 spill=0", "line 1"},
		{"a negative value", "gemm_naive sm_80 regs=-1 smem=0 stack=0 spill=0", "line 1"},
		{"a value that is not a number", "gemm_naive sm_80 regs=32x smem=0 stack=0 spill=0", "line 1"},
		{"a value above 2³¹−1", "gemm_naive sm_80 regs=2147483648 smem=0 stack=0 spill=0", "line 1"},
		{"a kernel twice for one architecture", figures + "flash_attention sm_89 regs=1 smem=0 stack=0 spill=0\n", "line 6"},
	} {
		_, err := ParseResources(tc.text)
		require.ErrorIs(t, err, unit00.ErrInvalid, tc.what)
		require.Contains(t, err.Error(), tc.line, "%s: the error names the line", tc.what)
	}
}

// The figures `make ptx` committed for unit15.cu parse, and hold every
// kernel of unit15.cu for both architectures.
func TestC15_6_ParseCommittedResources(t *testing.T) {
	text, err := os.ReadFile("../internal/cuda/kernels/unit15.ptxas.txt")
	require.NoError(t, err)
	res, err := ParseResources(string(text))
	require.NoError(t, err, "unit15.ptxas.txt")
	src, err := os.ReadFile("../internal/cuda/kernels/unit15.cu")
	require.NoError(t, err)
	kernels := regexp.MustCompile(`extern "C" __global__ void (?:__launch_bounds__\([^)]*\) )?(\w+)\(`).FindAllStringSubmatch(string(src), -1)
	require.NotEmpty(t, kernels, "the kernels of unit15.cu")
	for _, k := range kernels {
		for _, arch := range []string{"sm_80", "sm_89"} {
			found := false
			for _, r := range res {
				found = found || r.Kernel == k[1] && r.Arch == arch && r.Registers > 0
			}
			require.True(t, found, "unit15.ptxas.txt has no figures for %s on %s", k[1], arch)
		}
	}
}

// KernelOccupancy by 15.1's rules, worked out by hand for flash attention
// with a head of 64: 512 threads (16 warps), 5712 shared words (22,848
// bytes, 23,936 with the reserved kilobyte, rounded to 128).
//
//   - A100 (sm_80, 46 registers): a warp takes 46·32 = 1472, rounded to
//     1536; a block 16 · 1536 = 24,576 of 65,536: 2 blocks. Warps allow 4,
//     shared memory 7. Registers limit it: 2 blocks, 32 warps, 50%.
//   - RTX 4090 (sm_89, 40 registers): 1280 a warp, 20,480 a block: 3.
//     Warps allow 48/16 = 3 too, and come first: 3 blocks, 48 warps, 100%.
//   - gemm_tiled on an A100 (sm_80: 32 registers, 1024 static bytes) with
//     512 dynamic words: 256 threads; registers 1024 a warp, 8192 a block:
//     8; shared 1024 + 2048 + 1024 = 4096: 41; warps 64/8 = 8, first: 8.
func TestC15_6_KernelOccupancy(t *testing.T) {
	res, err := ParseResources(figures)
	require.NoError(t, err)
	for _, tc := range []struct {
		gpu            GPU
		kernel         string
		threads, words int
		want           Occupancy
	}{
		{A100, "flash_attention", 512, 5712, Occupancy{BlocksPerSM: 2, Warps: 32, Fraction: 0.5, Limit: "registers"}},
		{RTX4090, "flash_attention", 512, 5712, Occupancy{BlocksPerSM: 3, Warps: 48, Fraction: 1, Limit: "warps"}},
		{A100, "gemm_tiled", 256, 512, Occupancy{BlocksPerSM: 8, Warps: 64, Fraction: 1, Limit: "warps"}},
		{A100, "gemm_tiled", 256, 40000, Occupancy{BlocksPerSM: 1, Warps: 8, Fraction: 0.125, Limit: "shared memory"}}, // 161,024 bytes with its static 1024
		{A100, "gemm_tiled", 256, 26000, Occupancy{BlocksPerSM: 1, Warps: 8, Fraction: 0.125, Limit: "shared memory"}}, // 105,024 bytes: 106,112 a block with the reserved 1 KB, one fits in 164 KB
		{A100, "gemm_tiled", 256, 20500, Occupancy{BlocksPerSM: 1, Warps: 8, Fraction: 0.125, Limit: "shared memory"}}, // 82,000 bytes and the static 1024: 84,096 a block, one fits; without the static kilobyte, two would
		{A100, "gemm_tiled", 256, 19000, Occupancy{BlocksPerSM: 2, Warps: 16, Fraction: 0.25, Limit: "shared memory"}}, // 77,024 bytes: 78,080 a block, two fit
	} {
		got, err := KernelOccupancy(tc.gpu, res, tc.kernel, tc.threads, tc.words)
		require.NoError(t, err, "%s on %s", tc.kernel, tc.gpu.Name)
		if got != tc.want {
			t.Errorf("KernelOccupancy(%s, %s, %d threads, %d shared words) = %+v, want %+v", tc.gpu.Name, tc.kernel, tc.threads, tc.words, got, tc.want)
		}
	}
	for _, tc := range []struct {
		what    string
		gpu     GPU
		kernel  string
		threads int
	}{
		{"a kernel with no figures", A100, "gemm_naive", 256},
		{"no figures for the GPU's architecture", RTX4090, "gemm_tiled", 256},
		{"a block Occupancy refuses", A100, "gemm_tiled", 2048},
	} {
		_, err := KernelOccupancy(tc.gpu, res, tc.kernel, tc.threads, 0)
		require.ErrorIs(t, err, unit00.ErrInvalid, tc.what)
	}
}

// FuzzParseResources: any text either parses into figures that all hold
// a kernel, an sm_ architecture and no negative number, or is refused with
// an error wrapping unit00.ErrInvalid; never a panic.
func FuzzParseResources(f *testing.F) {
	f.Add(figures)
	f.Add("k sm_80 regs=1 smem=2 stack=3 spill=4\nk sm_80 regs=1 smem=2 stack=3 spill=4")
	f.Add("k sm_80 regs=99999999999 smem=0 stack=0 spill=0")
	f.Add("k sm_80 regs= smem=0 stack=0 spill=0")
	f.Add("\t#\n  \nk\tsm_9 spill=0 stack=0 smem=0 regs=0\r\n")
	f.Fuzz(func(t *testing.T, text string) {
		res, err := ParseResources(text)
		if err != nil {
			require.ErrorIs(t, err, unit00.ErrInvalid)
			return
		}
		for _, r := range res {
			if r.Kernel == "" || !regexp.MustCompile(`^sm_\d+$`).MatchString(r.Arch) || r.Registers < 0 || r.SharedBytes < 0 || r.StackBytes < 0 || r.SpillBytes < 0 {
				t.Fatalf("ParseResources(%q) gave %+v", text, r)
			}
		}
	})
}
