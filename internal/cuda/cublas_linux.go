//go:build linux

package cuda

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// cuBLAS's functions, bound by LoadBlas. cublasStatus_t is an int, a
// cublasHandle_t a pointer; the enumerations are ints. The _v2 names are
// the ones cublas_v2.h maps the plain names to.
var (
	cublasCreate     func(handle *uintptr) int32
	cublasDestroy    func(handle uintptr) int32
	cublasGetVersion func(handle uintptr, version *int32) int32
	cublasSgemm      func(handle uintptr, transa, transb, m, n, k int32, alpha *float32, a uint64, lda int32, b uint64, ldb int32, beta *float32, c uint64, ldc int32) int32
	cublasGemmEx     func(handle uintptr, transa, transb, m, n, k int32, alpha unsafe.Pointer, a uint64, atype, lda int32, b uint64, btype, ldb int32, beta unsafe.Pointer, c uint64, ctype, ldc, compute, algo int32) int32
)

// The constants of cublas_api.h and library_types.h these calls take.
const (
	blasOpN          = 0  // CUBLAS_OP_N
	dataR16F         = 2  // CUDA_R_16F
	dataR32F         = 0  // CUDA_R_32F
	blasCompute32F   = 68 // CUBLAS_COMPUTE_32F (cuBLAS 11 and later)
	blasGemmDefault  = -1 // CUBLAS_GEMM_DEFAULT
	blasFirstVersion = 11000
)

// The cuBLAS libraries tried, newest first: the sonames of CUDA 12 and 11,
// then the development link.
var blasLibs = []string{"libcublas.so.12", "libcublas.so.11", "libcublas.so"}

var (
	blasOnce sync.Once
	blasErr  error
	blasLib  string
)

// LoadBlas opens cuBLAS and binds its calls, once per process. Its error
// wraps ErrNoBlas when there is no library or it lacks a call.
func LoadBlas() error {
	blasOnce.Do(func() { blasErr = loadBlas() })
	return blasErr
}

func loadBlas() error {
	var lib uintptr
	var tried []string
	for _, name := range blasLibs {
		h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err == nil {
			lib, blasLib = h, name
			break
		}
		tried = append(tried, err.Error())
	}
	if lib == 0 {
		return fmt.Errorf("%w: %v", ErrNoBlas, tried)
	}
	for _, b := range []struct {
		fn   any
		name string
	}{
		{&cublasCreate, "cublasCreate_v2"}, {&cublasDestroy, "cublasDestroy_v2"},
		{&cublasGetVersion, "cublasGetVersion_v2"}, {&cublasSgemm, "cublasSgemm_v2"},
		{&cublasGemmEx, "cublasGemmEx"},
	} {
		sym, err := purego.Dlsym(lib, b.name)
		if err != nil {
			return fmt.Errorf("%w: %s has no %s: %v", ErrNoBlas, blasLib, b.name, err)
		}
		purego.RegisterFunc(b.fn, sym)
	}
	return nil
}

// Blas is a cuBLAS handle in a context. Its calls run on the context's
// default stream, in order with the kernels launched there, and, like
// every cuBLAS call, return once their work is queued: Context.Synchronize
// (or a copy out) waits for it, and Context.Time times it.
type Blas struct {
	c       *Context
	h       uintptr
	Version int    // cuBLAS's version, e.g. 12040 for 12.4.0
	Library string // the library loaded
}

// NewBlas creates a cuBLAS handle in c. Without the library its error
// wraps ErrNoBlas; cuBLAS older than 11 (whose GemmEx takes another kind
// of compute type) is an error too.
func (c *Context) NewBlas() (*Blas, error) {
	if err := LoadBlas(); err != nil {
		return nil, err
	}
	b := &Blas{c: c, Library: blasLib}
	if err := c.do("cublasCreate", func() Result { return Result(cublasCreate(&b.h)) }); err != nil {
		return nil, blasErrorOf(err)
	}
	var v int32
	if err := c.do("cublasGetVersion", func() Result { return Result(cublasGetVersion(b.h, &v)) }); err != nil {
		b.Close()
		return nil, blasErrorOf(err)
	}
	b.Version = int(v)
	if b.Version < blasFirstVersion {
		b.Close()
		return nil, fmt.Errorf("%w: %s is cuBLAS %d; want 11 or later", ErrNoBlas, blasLib, b.Version)
	}
	return b, nil
}

// blasErrorOf turns the *Error that Context.do makes of a call's status
// into a BlasError, when the call (not cuCtxSetCurrent) failed: do reads
// the status as a CUresult, and cuBLAS's have other meanings.
func blasErrorOf(err error) error {
	if e, ok := err.(*Error); ok && e.Call != "cuCtxSetCurrent" {
		return &BlasError{Call: e.Call, Status: int32(e.Result)}
	}
	return err
}

// Close destroys the handle.
func (b *Blas) Close() error {
	return blasErrorOf(b.c.do("cublasDestroy", func() Result { return Result(cublasDestroy(b.h)) }))
}

// Sgemm queues C = A·B for row-major float32 A (m×k), B (k×n) and C (m×n).
//
// cuBLAS is column-major: the row-major m×n C is, to it, the column-major
// n×m matrix Cᵀ, and likewise for A and B. So it is asked for
// Cᵀ = Bᵀ·Aᵀ: an n×m result from the n×k matrix Bᵀ (B's memory, leading
// dimension n) and the k×m matrix Aᵀ (A's memory, leading dimension k),
// neither transposed.
func (b *Blas) Sgemm(c, a, bm Buffer, m, n, k int) error {
	if err := checkGemmBuffers("Sgemm", c, a, bm, m, n, k, 4, 4); err != nil {
		return err
	}
	alpha, beta := float32(1), float32(0)
	return blasErrorOf(b.c.do("cublasSgemm", func() Result {
		return Result(cublasSgemm(b.h, blasOpN, blasOpN, int32(n), int32(m), int32(k), &alpha, bm.ptr, int32(n), a.ptr, int32(k), &beta, c.ptr, int32(n)))
	}))
}

// GemmF16 queues C = A·B for row-major A (m×k) and B (k×n) in IEEE half
// precision and C (m×n) in float32, the products summed in float32
// (cublasGemmEx with CUDA_R_16F inputs, a CUDA_R_32F output and
// CUBLAS_COMPUTE_32F): the tensor cores' road, and the one
// kernels' gemm_f16 takes. Row-major as Sgemm.
func (b *Blas) GemmF16(c, a, bm Buffer, m, n, k int) error {
	if err := checkGemmBuffers("GemmF16", c, a, bm, m, n, k, 2, 4); err != nil {
		return err
	}
	alpha, beta := float32(1), float32(0)
	return blasErrorOf(b.c.do("cublasGemmEx", func() Result {
		return Result(cublasGemmEx(b.h, blasOpN, blasOpN, int32(n), int32(m), int32(k), unsafe.Pointer(&alpha),
			bm.ptr, dataR16F, int32(n), a.ptr, dataR16F, int32(k), unsafe.Pointer(&beta),
			c.ptr, dataR32F, int32(n), blasCompute32F, blasGemmDefault))
	}))
}

// checkGemmBuffers checks the sizes of a GEMM and that its buffers hold
// them: in and out are the bytes of an element of A and B, and of C.
func checkGemmBuffers(call string, c, a, b Buffer, m, n, k, in, out int) error {
	const most = 1<<31 - 1
	if m < 1 || n < 1 || k < 1 || m > most || n > most || k > most ||
		a.size < in*m*k || b.size < in*k*n || c.size < out*m*n {
		return fmt.Errorf("cuda: %s of m, n, k = %d, %d, %d with buffers of %d, %d and %d bytes: want positive sizes below 2^31, A of %d·m·k bytes, B of %d·k·n, C of %d·m·n",
			call, m, n, k, a.size, b.size, c.size, in, in, out)
	}
	return nil
}
