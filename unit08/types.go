package unit08

// Flash is causal grouped-query attention computed tile by tile, with
// scratch for a fixed number of workers allocated when it is made, so that
// after its first call it allocates nothing. It is not safe for
// concurrent use (a Model is not either).
type Flash struct {
	// Your fields: the heads and the head width, and each worker's
	// scratch (see docs/unit08.md, 8.2).
}
