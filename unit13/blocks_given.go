// Package unit13 serves many requests at once from one model: a paged KV
// cache whose blocks sequences share (13.1), and, in the challenges that
// follow it, a batched forward step, a scheduler and an OpenAI-compatible
// HTTP server.
//
// Read docs/unit13.md first. Files whose names end in _given.go are
// scaffolding you do not write; every other file holds stubs for you to fill
// in.
package unit13

import "errors"

// BlockSize is the number of positions one block of the paged cache holds,
// vLLM's default: small enough that a sequence wastes under one block, large
// enough that a block table stays short.
const BlockSize = 16

// ErrNoBlocks says the pool has too few free blocks for a request. It is
// not bad input: a scheduler answers it by waiting or by preempting a
// sequence, and the call that returned it changed nothing.
var ErrNoBlocks = errors.New("no free KV blocks")

// blockKey names a full block in the prefix cache: its tokens and the block
// before it (parent −1 for a sequence's first block), with the generation
// that block had when this one was registered. A block's generation grows
// each time it leaves the cache, so a key whose parent has since been reused
// for other tokens never matches again: the whole prefix is compared, not a
// hash of it.
type blockKey struct {
	parent, gen int
	tokens      [BlockSize]int32
}
