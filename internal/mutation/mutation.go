// Package mutation generates mutants of the reference solutions mechanically
// and grades each one through the overlay, the way a learner's code is
// graded: the mutation score says how much of a solution the unit's tests
// actually pin down.
//
// A mutant is the reference overlay with one solution file replaced by a
// copy holding one small change: an operator from one of the standard
// classes (see Operators) applied at one place. The unit's test binary is
// compiled with that overlay and run (-test.short, -test.failfast); a
// failing binary kills the mutant, a passing one lets it survive. Mutants
// that do not compile are left out of the score; timeouts count as killed
// and are listed apart. Equivalent mutants, which no test can kill because
// they do not change behaviour, are triaged once in ci/mutation/unitNN.txt.
//
// Why a driver of our own on go/ast rather than github.com/go-gremlins/gremlins,
// which implements most of the same operators: measured on this workbook,
// gremlins counts a mutant that fails to build as killed (inflating every
// score), its timeout collapses when coverage comes from Go's test cache,
// it cannot pass -overlay (so it needs a materialized copy of the tree per
// run), it mutates the given files unless told not to, and it lacks guard
// removal and integer constants ±1. Here a mutant is a text splice of one
// file, graded with the overlay forge already builds, so every rule of the
// workbook (given files stay, build tags select the files) holds as it does
// for a learner, and each mutant is type-checked in-process before the go
// command is spent on it.
package mutation

import (
	"fmt"
	"strings"
)

// Operator is a class of mutation.
type Operator string

// The operators: gremlins' eleven, guard removal and integer constants ±1.
const (
	ArithmeticBase        Operator = "arithmetic-base"         // + - * / %
	ConditionalsBoundary  Operator = "conditionals-boundary"   // < to <=, ...
	ConditionalsNegation  Operator = "conditionals-negation"   // == to !=, < to >=, ...
	IncrementDecrement    Operator = "increment-decrement"     // ++ to --
	InvertAssignments     Operator = "invert-assignments"      // += to -=, ...
	InvertBitwise         Operator = "invert-bitwise"          // & to |, << to >>, ...
	InvertBitwiseAssign   Operator = "invert-bitwise-assign"   // &= to |=, ...
	InvertLogical         Operator = "invert-logical"          // && to ||
	InvertLoopControl     Operator = "invert-loop-control"     // break to continue
	InvertNegatives       Operator = "invert-negatives"        // -x to x
	RemoveSelfAssignments Operator = "remove-self-assignments" // x += y to x = y
	GuardRemoval          Operator = "guard-removal"           // if cond { return } never taken
	IntegerConstant       Operator = "integer-constant"        // 3 to 2 and to 4
)

// Operators lists every operator in report order.
var Operators = []Operator{
	ArithmeticBase, ConditionalsBoundary, ConditionalsNegation, IncrementDecrement,
	InvertAssignments, InvertBitwise, InvertBitwiseAssign, InvertLogical,
	InvertLoopControl, InvertNegatives, RemoveSelfAssignments, GuardRemoval,
	IntegerConstant,
}

// Mutant is one change to one file. Its identity (Key) names the function,
// the operator, the expression before and after and which occurrence of
// that same change in the function it is: no line number, so a triage entry
// survives edits elsewhere in the file.
type Mutant struct {
	File string   // path relative to the repository root, slash-separated
	Func string   // enclosing function: "Forward", "Model.Forward", or "-" at package level
	Op   Operator // the operator applied
	Orig string   // the expression (or statement) as written, whitespace collapsed
	Mut  string   // the same after the change
	Occ  int      // 0 for the first such change in Func, 1 for the second, ...
	Line int      // where the change is (for the report only)
	Col  int      // byte column of the changed text, 1-based (for coverage)

	start, end int    // byte range of the source replaced
	repl       string // what replaces it
}

// Key identifies a mutant across edits: file, function, operator, the
// expression before and after, and the occurrence index.
type Key struct {
	File, Func string
	Op         Operator
	Orig, Mut  string
	Occ        int
}

// Key returns the mutant's identity.
func (m Mutant) Key() Key {
	return Key{File: baseName(m.File), Func: m.Func, Op: m.Op, Orig: m.Orig, Mut: m.Mut, Occ: m.Occ}
}

// String is the report line: "solutions/unit05/model.go:123: conditionals-boundary: i < n -> i <= n (in func Forward)".
func (m Mutant) String() string {
	return fmt.Sprintf("%s:%d: %s: %s -> %s (in func %s)", m.File, m.Line, m.Op, shorten(m.Orig), shorten(m.Mut), m.Func)
}

// Apply returns src with the mutant's change made. src must be the text the
// mutant was generated from.
func (m Mutant) Apply(src []byte) []byte {
	out := make([]byte, 0, len(src)+len(m.repl))
	out = append(out, src[:m.start]...)
	out = append(out, m.repl...)
	return append(out, src[m.end:]...)
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// shorten keeps report lines readable: long expressions are cut in the
// middle.
func shorten(s string) string {
	const max = 70
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max/2-1]) + " … " + string(r[len(r)-max/2+2:])
}
