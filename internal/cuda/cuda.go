package cuda

import (
	"errors"
	"fmt"
)

// ErrNoDriver is wrapped by Load's error when the CUDA driver cannot be
// used here: no library, or no device.
var ErrNoDriver = errors.New("cuda: no usable CUDA driver")

// Result is a CUresult, the status every driver call returns; 0 is
// success.
type Result int32

// Error is a failed driver call: which call, its status, and the driver's
// own words for it.
type Error struct {
	Call   string
	Result Result
	Text   string
}

func (e *Error) Error() string {
	return fmt.Sprintf("cuda: %s: %s (CUresult %d)", e.Call, e.Text, e.Result)
}
