package unit15

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llmforge/forge/internal/cuda"
)

// The boss's second figure on a real GPU, decode-x-cpu: llm decoding a
// TinyLlama-shaped Q4_0 model with every layer on the GPU (`llm bench
// --device cuda`) against the same llm decoding on every core of the CPU
// (`llm bench`), the tg32 tokens per second of the first over the
// second's, each the best of three repetitions. llm is built from the
// units under test (the grader's overlay, FORGE_OVERLAY) and runs the
// offload of internal/gpu, whose kernels are internal/cuda/kernels'
// engine.cu. Without a GPU it is not measured, and says so.

// decodeAgainstCPU measures decode-x-cpu, or says in one line why it
// cannot.
func decodeAgainstCPU(b *testing.B) (float64, bool, string) {
	b.Helper()
	if err := cuda.Load(); err != nil {
		return 0, false, fmt.Sprintf("decode-x-cpu not measured: no GPU (%v)", err)
	}
	root, err := filepath.Abs("..")
	require.NoError(b, err)
	dir := b.TempDir()
	llm := filepath.Join(dir, "llm")
	args := []string{"build", "-o", llm}
	if ov := os.Getenv("FORGE_OVERLAY"); ov != "" {
		args = append(args, "-overlay", ov)
	}
	build := exec.Command("go", append(args, "./cmd/llm")...)
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoError(b, err, "building llm: %s", out)
	model := filepath.Join(dir, "model.gguf")
	out, err = exec.Command(llm, "gen", "--shape", "tinyllama-1.1b", "--type", "q4_0", "-o", model).CombinedOutput()
	require.NoError(b, err, "llm gen: %s", out)
	tg := func(device string) float64 {
		out, err := exec.Command(llm, "bench", "-m", model, "-p", "16", "-n", "32", "-r", "3", "--json", "--device", device).Output()
		require.NoError(b, err, "llm bench --device %s", device)
		dec := json.NewDecoder(bytes.NewReader(out))
		for dec.More() {
			var row struct {
				Test string  `json:"test"`
				TPS  float64 `json:"tps"`
			}
			require.NoError(b, dec.Decode(&row), "llm bench --json output:\n%s", out)
			if row.Test == "tg32" {
				return row.TPS
			}
		}
		b.Fatalf("llm bench --device %s gave no tg32 figure:\n%s", device, out)
		return 0
	}
	gpu, cpu := tg("cuda"), tg("cpu")
	b.Logf("decode of a TinyLlama-shaped Q4_0 model: %.1f tok/s on the GPU, %.1f on the CPU", gpu, cpu)
	return gpu / cpu, true, ""
}
