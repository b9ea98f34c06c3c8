//go:build !forgedebug

package unit00

// Debug reports whether this build has debug assertions on (build tag forgedebug).
const Debug = false

// Assert panics, like Check, when cond is false, but only in builds with the
// forgedebug tag; in other builds it compiles to nothing. Use it for checks
// too costly for production, such as re-validating every index in a hot loop.
//
// This is the release version: an empty function that the compiler inlines
// away, so a call costs nothing once its argument has no side effects.
func Assert(cond bool, msg string) {}
