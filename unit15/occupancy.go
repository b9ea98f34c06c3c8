package unit15

// Occupancy is what blocks of threads threads, each thread using regs
// registers, each block sharedBytes of shared memory, leave resident on
// one of g's SMs: the least of what the warps, the block slots, the
// register file and the shared memory each allow. A block takes
// ⌈threads/32⌉ warps, each warp regs·32 registers rounded up to
// RegisterUnit, and sharedBytes plus ReservedShared rounded up to
// SharedUnit; regs = 0 (a kernel whose register use is not known) puts
// no limit on registers. When two limits allow the same number of blocks, Limit names
// the first in that order. threads outside 1 to 1024, regs outside 0 to
// MaxRegsPerThread, or sharedBytes outside 0 to MaxSharedPerBlock is an
// error wrapping unit00.ErrInvalid.
func (g GPU) Occupancy(threads, regs, sharedBytes int) (Occupancy, error) {
	panic("TODO(15.1): write GPU.Occupancy, see docs/unit15.md")
}
