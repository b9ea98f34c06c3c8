// Package unit07 is the KV cache: the keys and values of every position
// already processed, kept so that generating a token costs one position's
// work instead of the whole sequence's. A Cache holds them, preallocated to
// the model's context (7.1); a Session runs prefill and decode steps over it
// (7.2), gives the same logits as a full forward pass (7.3), and is reset or
// truncated for reuse, with a clear error when the context is full (7.4).
//
// Read docs/unit07.md first. Files whose names end in _given.go are
// scaffolding you do not write; every other file holds stubs for you to
// fill in.
package unit07

import "errors"

// ErrContextFull is wrapped by the errors of operations that would go
// beyond a cache's capacity, the model's MaxSeq positions.
var ErrContextFull = errors.New("context full")
