//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package main

// availableMemory is the conservative rule where llm cannot ask the system
// (Windows among them): fallbackMemory.
func availableMemory() (int64, string) { return fallbackMemory, fallbackSource }
