package unit15

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
	panic("TODO(15.6): write ParseResources, see docs/unit15.md")
}

// KernelOccupancy is how many blocks of kernel name, launched with threads
// threads a block and sharedWords words of dynamic shared memory, one of
// g's SMs keeps resident, by the figures res gives for g's architecture
// (sm_80 for compute capability 8.0, sm_89 for 8.9): GPU.Occupancy with
// the kernel's registers and its static and dynamic shared memory
// together. A kernel res has no figures for on that architecture is an
// error wrapping unit00.ErrInvalid, as is anything GPU.Occupancy refuses.
func KernelOccupancy(g GPU, res []Resources, name string, threads, sharedWords int) (Occupancy, error) {
	panic("TODO(15.6): write KernelOccupancy, see docs/unit15.md")
}
