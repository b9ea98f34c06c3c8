// Package oracle holds the trusted side of every test: slow, obviously correct
// float64 references, seeded data generators and the assertion helpers that
// turn a wrong answer into a message a learner can act on.
//
// Learner code and reference solutions never import oracle; only tests do.
// Everything here favours clarity over speed: a reference must be easy to
// check by reading it.
package oracle
