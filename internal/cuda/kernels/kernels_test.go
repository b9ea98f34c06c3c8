package kernels

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// rebuild is what every failure of the manifest check says to do.
const rebuild = "run `make ptx` (it needs nvcc: ci/cuda/install-toolkit.sh installs it) and commit the .ptx, .ptxas.txt and .sum it writes"

// outputs are the files make ptx writes for each source X.cu.
var outputs = []string{".ptx", ".ptxas.txt", ".sum"}

// TestManifest checks, without nvcc, that the committed PTX is the one its
// source builds: every X.cu has its X.ptx, X.ptxas.txt and X.sum and every
// such file its X.cu, and the checksums in X.sum are those of the files
// as they are now. A source edited without `make ptx` fails here.
func TestManifest(t *testing.T) {
	sources := glob(t, "*.cu")
	if len(sources) == 0 {
		t.Fatal("no .cu file in internal/cuda/kernels")
	}
	for _, ext := range outputs {
		for _, f := range glob(t, "*"+ext) {
			if x := strings.TrimSuffix(f, ext); !slices.Contains(sources, x+".cu") {
				t.Errorf("%s has no %s.cu to build it from: remove it, or add the source", f, x)
			}
		}
	}
	for _, cu := range sources {
		x := strings.TrimSuffix(cu, ".cu")
		missing := false
		for _, ext := range outputs {
			if _, err := os.Stat(x + ext); err != nil {
				t.Errorf("%s has no %s: %s", cu, x+ext, rebuild)
				missing = true
			}
		}
		if missing {
			continue
		}
		sums, version := readSum(t, x+".sum")
		if !strings.Contains(version, "Cuda compilation tools") {
			t.Errorf("%s.sum does not say which nvcc built it (its first line: %q): %s", x, version, rebuild)
		}
		for _, f := range []string{cu, x + ".ptx", x + ".ptxas.txt"} {
			want, ok := sums[f]
			switch {
			case !ok:
				t.Errorf("%s.sum has no checksum of %s: %s", x, f, rebuild)
			case hash(t, f) != want:
				t.Errorf("%s does not match its checksum in %s.sum: it changed since make ptx built the module (an edit of the source without a rebuild, or an edit of an output by hand): %s", f, x, rebuild)
			}
			delete(sums, f)
		}
		for f := range sums {
			t.Errorf("%s.sum lists %s, which is not one of %s's files", x, f, x)
		}
	}
}

var (
	// globalRE finds a kernel's name in CUDA C: extern "C" __global__ void,
	// perhaps __launch_bounds__(...), then the name.
	globalRE = regexp.MustCompile(`extern\s+"C"\s+__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s+)?(\w+)\s*\(`)
	entryRE  = regexp.MustCompile(`(?m)^\.visible \.entry (\w+)\(`)
)

// TestEntries checks that every extern "C" __global__ kernel of a source
// is an entry of its PTX under its C name, the name cuda.Module.Kernel
// looks up, and that ptxas's figures cover every entry on both
// architectures.
func TestEntries(t *testing.T) {
	for _, cu := range glob(t, "*.cu") {
		x := strings.TrimSuffix(cu, ".cu")
		src := read(t, cu)
		ptx, err := os.ReadFile(x + ".ptx")
		if err != nil {
			continue // TestManifest reports it
		}
		var entries []string
		for _, m := range entryRE.FindAllStringSubmatch(string(ptx), -1) {
			entries = append(entries, m[1])
		}
		kernels := globalRE.FindAllStringSubmatch(src, -1)
		if len(kernels) == 0 {
			t.Errorf("%s declares no extern \"C\" __global__ kernel", cu)
		}
		for _, m := range kernels {
			if !slices.Contains(entries, m[1]) {
				t.Errorf("%s declares kernel %s, which %s.ptx has no .entry for: %s", cu, m[1], x, rebuild)
			}
		}
		if len(entries) != len(kernels) {
			t.Errorf("%s.ptx has %d entries %v, %s declares %d extern \"C\" __global__ kernels: every kernel of a module is extern \"C\" (so that its entry has its C name): %s",
				x, len(entries), entries, cu, len(kernels), rebuild)
		}
		figures, err := os.ReadFile(x + ".ptxas.txt")
		if err != nil {
			continue
		}
		for _, e := range entries {
			for _, arch := range []string{"sm_80", "sm_89"} {
				if !regexp.MustCompile(`(?m)^` + e + ` ` + arch + ` regs=\d+ smem=\d+ stack=\d+ spill=\d+$`).Match(figures) {
					t.Errorf("%s.ptxas.txt has no line for %s on %s: %s", x, e, arch, rebuild)
				}
			}
		}
	}
}

// TestPTX checks the embedded modules: one per .ptx file, the same text,
// PTX for compute_80; and that an unknown name panics, naming the modules.
func TestPTX(t *testing.T) {
	var want []string
	for _, f := range glob(t, "*.ptx") {
		want = append(want, strings.TrimSuffix(f, ".ptx"))
	}
	if got := Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, name := range want {
		text := PTX(name)
		if text != read(t, name+".ptx") {
			t.Errorf("PTX(%q) is not %s.ptx", name, name)
		}
		if !strings.Contains(text, "\n.target sm_80\n") {
			t.Errorf("PTX(%q) is not built for compute_80 (no .target sm_80 line): %s", name, rebuild)
		}
	}
	defer func() {
		r := recover()
		if r == nil {
			t.Fatal("PTX of an unknown module did not panic")
		}
		if msg, _ := r.(string); !strings.Contains(msg, "absent") || !strings.Contains(msg, "unit15") {
			t.Errorf("PTX(\"absent\") panicked with %v; want the name asked for and the modules there are", r)
		}
	}()
	PTX("absent")
}

// readSum parses a manifest: a first line "# <nvcc's version>: <flags>",
// then "<sha256>  <file>" lines as sha256sum writes them.
func readSum(t *testing.T, path string) (map[string]string, string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(read(t, path), "\n"), "\n")
	sums := map[string]string{}
	for _, l := range lines[1:] {
		sum, file, ok := strings.Cut(l, "  ")
		if !ok || len(sum) != 64 {
			t.Errorf("%s: line %q is not \"<sha256>  <file>\": %s", path, l, rebuild)
			continue
		}
		sums[file] = sum
	}
	return sums, lines[0]
}

func hash(t *testing.T, path string) string {
	sum := sha256.Sum256([]byte(read(t, path)))
	return hex.EncodeToString(sum[:])
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func glob(t *testing.T, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}
