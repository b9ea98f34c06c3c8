//go:build !amd64 || purego

package unit00

var cpuSIMD = SIMDNone
