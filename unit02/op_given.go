// Package unit02 holds the math kernels a transformer needs, float32 in and
// out: elementwise arithmetic with broadcasting (2.1), activations (2.2),
// normalisation (2.3), softmax (2.4) and reductions (2.5), each with a
// plain-slice fast path for the hot loops of later units.
//
// Read docs/unit02.md first. Files whose names end in _given.go are scaffolding you do
// not write; every other file holds stubs for you to fill in.
package unit02

import "fmt"

// Op is an elementwise binary operation.
type Op int

const (
	Add Op = iota // x + y
	Sub           // x − y
	Mul           // x · y
	Div           // x / y
)

// String returns the operation's name.
func (o Op) String() string {
	switch o {
	case Add:
		return "Add"
	case Sub:
		return "Sub"
	case Mul:
		return "Mul"
	case Div:
		return "Div"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}
