package cuda

import (
	"errors"
	"fmt"
)

// ErrNoBlas is wrapped by LoadBlas's error (and so NewBlas's) when cuBLAS
// cannot be used here: no libcublas, or one without the calls bound.
var ErrNoBlas = errors.New("cuda: no usable cuBLAS library")

// BlasError is a failed cuBLAS call: which call and its cublasStatus_t.
type BlasError struct {
	Call   string
	Status int32
}

func (e *BlasError) Error() string {
	return fmt.Sprintf("cuda: %s: %s (cublasStatus_t %d)", e.Call, blasStatusName(e.Status), e.Status)
}

// blasStatusName is the name cublas_api.h gives a status.
func blasStatusName(s int32) string {
	switch s {
	case 0:
		return "CUBLAS_STATUS_SUCCESS"
	case 1:
		return "CUBLAS_STATUS_NOT_INITIALIZED"
	case 3:
		return "CUBLAS_STATUS_ALLOC_FAILED"
	case 7:
		return "CUBLAS_STATUS_INVALID_VALUE"
	case 8:
		return "CUBLAS_STATUS_ARCH_MISMATCH"
	case 11:
		return "CUBLAS_STATUS_MAPPING_ERROR"
	case 13:
		return "CUBLAS_STATUS_EXECUTION_FAILED"
	case 14:
		return "CUBLAS_STATUS_INTERNAL_ERROR"
	case 15:
		return "CUBLAS_STATUS_NOT_SUPPORTED"
	case 16:
		return "CUBLAS_STATUS_LICENSE_ERROR"
	}
	return "unknown status"
}
