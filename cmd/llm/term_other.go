//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly && !windows

package main

// isTerminal reports false where there is no way to ask: progress is then
// never shown.
func isTerminal(fd uintptr) bool { return false }
