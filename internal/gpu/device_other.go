//go:build !linux

package gpu

import (
	"errors"

	"github.com/llmforge/forge/internal/cuda"
	"github.com/llmforge/forge/unit05"
)

// Device is a CUDA device; only Linux has a driver binding, so none opens
// here.
type Device struct{}

// Open reports that there is no driver here: its error wraps
// cuda.ErrNoDriver.
func Open() (*Device, error) { return nil, cuda.Load() }

// Name is the device's name.
func (d *Device) Name() string { return "" }

// Close does nothing: no device opens here.
func (d *Device) Close() error { return nil }

// Offload is never reached here, since Open fails.
func Offload(d *Device, m *unit05.Model, n int, half bool, cpuStore func(layers int) (unit05.KVStore, error)) (Plan, error) {
	return Plan{}, errors.New("gpu: no CUDA device on this system")
}
