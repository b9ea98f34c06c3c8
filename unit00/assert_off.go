//go:build !forgedebug

package unit00

// Debug reports whether this build has debug assertions on (build tag forgedebug).
const Debug = false

// Assert panics, like Check, when cond is false, but only in builds with the
// forgedebug tag; in other builds it compiles to nothing. Use it for checks
// too costly for production, such as re-validating every index in a hot loop.
//
// This is the release version: it must cost nothing.
func Assert(cond bool, msg string) {
	panic("TODO(0.2): write the release Assert (no forgedebug tag), see docs/unit00.md")
}
