package unit08

// Flash is causal grouped-query attention computed tile by tile, with
// scratch for a fixed number of workers allocated when it is made, so that
// after its first call it allocates nothing. It is not safe for
// concurrent use (a Model is not either).
type Flash struct {
	// Your fields: the heads and the head width, and each worker's
	// scratch (see docs/unit08.md, 8.2).
}

// Store is a KV cache that keeps keys and values as F32, F16 or Q8_0 rows
// and attends over them with its Flash (8.5).
type Store struct {
	// Your fields: the Flash, each layer's stored keys and values, and
	// the number of positions (see docs/unit08.md, 8.5).
}
