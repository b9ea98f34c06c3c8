package unit15

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llmforge/forge/unit00"
)

// Resources is what ptxas reports one kernel uses on one architecture:
// the figures `make ptx` records for every kernel of a module, in
// internal/cuda/kernels/X.ptxas.txt.
type Resources struct {
	Kernel      string
	Arch        string // "sm_80", "sm_89": the SM it was assembled for
	Registers   int    // a thread's
	SharedBytes int    // static shared memory a block (the dynamic part is the launch's)
	StackBytes  int    // a thread's stack frame, in local memory
	SpillBytes  int    // registers spilled to local memory, stores and loads
}

// ParseResources reads a module's ptxas figures: a line per kernel and
// architecture, "name sm_NN regs=R smem=S stack=T spill=P", its four
// fields once each in any order, each value a decimal integer from 0 to
// 2³¹−1; blank lines and lines that start with # are skipped. Anything
// else is an error wrapping unit00.ErrInvalid that names the line: a line
// with no architecture, an architecture that is not sm_ and digits, a
// field that is unknown, repeated, missing or not a number, or a kernel
// listed twice for one architecture.
func ParseResources(text string) ([]Resources, error) {
	var out []Resources
	seen := map[[2]string]bool{}
	for i, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r, err := parseResourceLine(line)
		if err != nil {
			return nil, fmt.Errorf("ptxas figures, line %d (%q): %v: %w", i+1, line, err, unit00.ErrInvalid)
		}
		key := [2]string{r.Kernel, r.Arch}
		if seen[key] {
			return nil, fmt.Errorf("ptxas figures, line %d: %s for %s a second time: %w", i+1, r.Kernel, r.Arch, unit00.ErrInvalid)
		}
		seen[key] = true
		out = append(out, r)
	}
	return out, nil
}

// parseResourceLine reads one line of figures.
func parseResourceLine(line string) (Resources, error) {
	f := strings.Fields(line)
	if len(f) < 2 {
		return Resources{}, fmt.Errorf("want a kernel's name, its architecture and its figures")
	}
	r := Resources{Kernel: f[0], Arch: f[1]}
	if digits, ok := strings.CutPrefix(r.Arch, "sm_"); !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
		return Resources{}, fmt.Errorf("architecture %q: want sm_ and its number", r.Arch)
	}
	fields := map[string]*int{"regs": &r.Registers, "smem": &r.SharedBytes, "stack": &r.StackBytes, "spill": &r.SpillBytes}
	set := map[string]bool{}
	for _, kv := range f[2:] {
		k, v, _ := strings.Cut(kv, "=")
		p, known := fields[k]
		switch {
		case !known:
			return Resources{}, fmt.Errorf("unknown field %q: want regs, smem, stack and spill", kv)
		case set[k]:
			return Resources{}, fmt.Errorf("%s given twice", k)
		}
		n, err := strconv.ParseUint(v, 10, 31)
		if err != nil {
			return Resources{}, fmt.Errorf("%s=%q: want a number from 0 to 2³¹−1", k, v)
		}
		*p, set[k] = int(n), true
	}
	if len(set) != len(fields) {
		return Resources{}, fmt.Errorf("want all of regs, smem, stack and spill")
	}
	return r, nil
}

// KernelOccupancy is how many blocks of kernel name, launched with threads
// threads a block and sharedWords words of dynamic shared memory, one of
// g's SMs keeps resident, by the figures res gives for g's architecture
// (sm_80 for compute capability 8.0, sm_89 for 8.9): GPU.Occupancy with
// the kernel's registers and its static and dynamic shared memory
// together. A kernel res has no figures for on that architecture is an
// error wrapping unit00.ErrInvalid, as is anything GPU.Occupancy refuses.
func KernelOccupancy(g GPU, res []Resources, name string, threads, sharedWords int) (Occupancy, error) {
	arch := "sm_" + strings.ReplaceAll(g.CC, ".", "")
	for _, r := range res {
		if r.Kernel == name && r.Arch == arch {
			return g.Occupancy(threads, r.Registers, r.SharedBytes+4*sharedWords)
		}
	}
	return Occupancy{}, fmt.Errorf("occupancy: no ptxas figures for %s on %s (%s): %w", name, arch, g.Name, unit00.ErrInvalid)
}
