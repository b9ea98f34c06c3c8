// Package unit00 is the harness every later unit leans on: deciding when two
// floating-point numbers are close enough (0.1), failing loudly when an
// invariant breaks (0.2), and logging at a chosen level (0.3).
//
// Read docs/unit00.md first. Files whose names end in _given.go are scaffolding you do not
// write; every other file holds stubs for you to fill in.
package unit00

import "errors"

// Sentinel errors shared by every unit. Wrap them with fmt.Errorf("...: %w", ErrX)
// or InputErrorf so callers can test the kind with errors.Is.
var (
	// ErrTruncated: the input ended before a value could be read.
	ErrTruncated = errors.New("truncated input")
	// ErrInvalid: a value was read but is not allowed (a bad count, an unknown name, ...).
	ErrInvalid = errors.New("invalid value")
	// ErrUnsupported: the input is valid but asks for something this code does not do.
	ErrUnsupported = errors.New("unsupported")
)
