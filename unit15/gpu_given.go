package unit15

// This file is given: the two GPUs whose limits the occupancy lesson
// (15.1) uses.

// GPU holds the per-SM limits that decide how many blocks of a kernel an
// SM keeps resident at once: the CUDA C++ Programming Guide's table of
// technical specifications per compute capability, and the SM count of
// the named part.
type GPU struct {
	Name              string
	CC                string // compute capability
	SMs               int
	MaxThreadsPerSM   int
	MaxBlocksPerSM    int
	RegistersPerSM    int // 32-bit registers
	MaxRegsPerThread  int
	SharedPerSM       int // bytes a kernel's blocks may share out
	MaxSharedPerBlock int // bytes one block may have (opt-in above 48 KB)
	// ReservedShared is taken by the system from the shared memory of every
	// resident block (1 KB since compute capability 8.0).
	ReservedShared int
}

// The two GPUs of the unit: a data-centre Ampere and a consumer Ada.
var (
	A100 = GPU{Name: "NVIDIA A100", CC: "8.0", SMs: 108, MaxThreadsPerSM: 2048, MaxBlocksPerSM: 32,
		RegistersPerSM: 65536, MaxRegsPerThread: 255, SharedPerSM: 164 << 10, MaxSharedPerBlock: 163 << 10, ReservedShared: 1 << 10}
	RTX4090 = GPU{Name: "NVIDIA GeForce RTX 4090", CC: "8.9", SMs: 128, MaxThreadsPerSM: 1536, MaxBlocksPerSM: 24,
		RegistersPerSM: 65536, MaxRegsPerThread: 255, SharedPerSM: 100 << 10, MaxSharedPerBlock: 99 << 10, ReservedShared: 1 << 10}
)

// Allocation units: registers are given to a warp in multiples of 256,
// shared memory to a block in multiples of 128 bytes.
const (
	RegisterUnit = 256
	SharedUnit   = 128
)

// Occupancy is how full a kernel keeps an SM.
type Occupancy struct {
	BlocksPerSM int     // resident blocks
	Warps       int     // resident warps
	Fraction    float64 // Warps over the SM's maximum
	Limit       string  // what stops one more block: "warps", "blocks", "registers" or "shared memory"
}
