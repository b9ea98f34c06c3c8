package unit15

// This file is given: the vocabulary of the emulator (15.1) and what it
// counts.

// Dim3 is the extent of a grid or of a block, or an index inside one, as
// CUDA's dim3: X varies fastest.
type Dim3 struct{ X, Y, Z int }

// Size is the number of points of an extent, X·Y·Z.
func (d Dim3) Size() int { return d.X * d.Y * d.Z }

// Global is a buffer of device memory: float32 words, word i at byte 4·i.
type Global struct {
	Data []float32
}

// Kernel is the body every thread of a launch runs.
type Kernel func(t *Thread)

// MaxThreads is the most threads a block may have, on every GPU since
// compute capability 2.0.
const MaxThreads = 1024

// WarpSize is the number of threads that issue each instruction together.
const WarpSize = 32

// SectorBytes is the unit of global memory traffic: a request moves whole
// 32-byte sectors.
const SectorBytes = 32

// Banks is the number of shared-memory banks, each 4 bytes wide: word i is
// in bank i mod 32.
const Banks = 32

// Stats is what a launch did, counted as a GPU's profiler counts it: per
// warp, each access of the 32 threads together (the k-th global access of
// every thread of a warp is one request, as the threads of a warp issue
// the same instruction), the 32-byte sectors a global request touches, and
// the passes a shared request takes when several of its threads want
// different words of one bank.
type Stats struct {
	Blocks, Threads int
	Shared          int // words of shared memory each block had
	LoadRequests    int // warp-wide global loads
	LoadSectors     int // 32-byte sectors those loads moved
	StoreRequests   int // warp-wide global stores
	StoreSectors    int
	SharedRequests  int // warp-wide shared loads and stores
	BankConflicts   int // passes beyond the first that they took
	Barriers        int // SyncThreads passed, summed over the blocks
}

// LoadBytes is the global memory a launch read: its sectors times 32.
func (s Stats) LoadBytes() int { return s.LoadSectors * SectorBytes }

// StoreBytes is the global memory a launch wrote.
func (s Stats) StoreBytes() int { return s.StoreSectors * SectorBytes }
