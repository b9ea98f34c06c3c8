//go:build !race

package oracle

// RaceEnabled reports whether the race detector is on. Allocation counts
// are meaningless under it: it instruments memory, and sync.Pool drops a
// share of what is put back on purpose, so AllocsPerRun checks skip.
const RaceEnabled = false
