package unit03

// This file is given: the contract between a Pool and the work it runs.

// A Task is work cut into parts, run by RunTask: Do(i) does part i. Parts
// run concurrently, so Do must not write what another part reads or writes.
type Task interface {
	Do(i int)
}

// TaskFunc adapts a function to a Task.
type TaskFunc func(i int)

// Do calls f(i).
func (f TaskFunc) Do(i int) { f(i) }
