package unit15

import (
	"fmt"

	"github.com/llmforge/forge/unit00"
)

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
	if threads < 1 || threads > MaxThreads || regs < 0 || regs > g.MaxRegsPerThread || sharedBytes < 0 || sharedBytes > g.MaxSharedPerBlock {
		return Occupancy{}, fmt.Errorf("occupancy on %s: %d threads, %d registers, %d shared bytes a block: want 1 to %d threads, 0 to %d registers, 0 to %d bytes: %w",
			g.Name, threads, regs, sharedBytes, MaxThreads, g.MaxRegsPerThread, g.MaxSharedPerBlock, unit00.ErrInvalid)
	}
	warps := (threads + WarpSize - 1) / WarpSize
	maxWarps := g.MaxThreadsPerSM / WarpSize
	limits := []struct {
		name   string
		blocks int
	}{
		{"warps", maxWarps / warps},
		{"blocks", g.MaxBlocksPerSM},
		{"registers", g.byRegisters(regs, warps)},
		{"shared memory", g.SharedPerSM / roundUp(sharedBytes+g.ReservedShared, SharedUnit)},
	}
	o := Occupancy{BlocksPerSM: limits[0].blocks, Limit: limits[0].name}
	for _, l := range limits[1:] {
		if l.blocks < o.BlocksPerSM {
			o.BlocksPerSM, o.Limit = l.blocks, l.name
		}
	}
	o.Warps = o.BlocksPerSM * warps
	o.Fraction = float64(o.Warps) / float64(maxWarps)
	return o, nil
}

// byRegisters is the blocks of warps warps the register file holds when
// each thread takes regs registers (no limit for 0).
func (g GPU) byRegisters(regs, warps int) int {
	if regs == 0 {
		return g.MaxBlocksPerSM
	}
	perWarp := roundUp(regs*WarpSize, RegisterUnit)
	return g.RegistersPerSM / perWarp / warps
}

func roundUp(x, unit int) int { return (x + unit - 1) / unit * unit }
