//go:build linux

package cuda

import (
	"fmt"
	"sync"
	"time"

	"github.com/ebitengine/purego"
)

// The calls beyond Load's, bound by loadMore from the driver Load opened:
// events, and a kernel's attributes. A CUevent and a CUstream are
// pointers; the stream 0 is the context's default stream, where Launch,
// Enqueue and cuBLAS put their work.
var (
	cuFuncSetAttribute func(fn uintptr, attr int32, value int32) Result
	cuEventCreate      func(ev *uintptr, flags uint32) Result
	cuEventRecord      func(ev uintptr, stream uintptr) Result
	cuEventSynchronize func(ev uintptr) Result
	cuEventElapsedTime func(ms *float32, start, end uintptr) Result
	cuEventDestroy     func(ev uintptr) Result
)

var (
	moreOnce sync.Once
	moreErr  error
)

// loadMore binds those calls, once, after Load. Opening libcuda.so.1
// again returns the handle Load got.
func loadMore() error {
	moreOnce.Do(func() {
		if moreErr = Load(); moreErr != nil {
			return
		}
		lib, err := purego.Dlopen("libcuda.so.1", purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			moreErr = fmt.Errorf("%w: %v", ErrNoDriver, err)
			return
		}
		for _, b := range []struct {
			fn   any
			name string
		}{
			{&cuFuncSetAttribute, "cuFuncSetAttribute"},
			{&cuEventCreate, "cuEventCreate"}, {&cuEventRecord, "cuEventRecord"},
			{&cuEventSynchronize, "cuEventSynchronize"}, {&cuEventElapsedTime, "cuEventElapsedTime"},
			{&cuEventDestroy, "cuEventDestroy_v2"},
		} {
			sym, err := purego.Dlsym(lib, b.name)
			if err != nil {
				moreErr = fmt.Errorf("%w: libcuda.so.1 has no %s: %v", ErrNoDriver, b.name, err)
				return
			}
			purego.RegisterFunc(b.fn, sym)
		}
	})
	return moreErr
}

// Synchronize waits until all the work queued in c has finished.
func (c *Context) Synchronize() error {
	return c.do("cuCtxSynchronize", cuCtxSynchronize)
}

// Time returns the device's time for the work f queues on the default
// stream (kernels through Enqueue, cuBLAS calls): the time between an
// event recorded before f and one recorded after it, both taken by the
// GPU, so the host's own time to queue the work is not counted as long as
// it keeps ahead of the device. A Launch inside f waits for its kernel, so
// the host's time between two Launches is counted; time many kernels with
// Enqueue. Time waits for the work to finish.
func (c *Context) Time(f func() error) (time.Duration, error) {
	if err := loadMore(); err != nil {
		return 0, err
	}
	var start, end uintptr
	if err := c.do("cuEventCreate", func() Result { return cuEventCreate(&start, 0) }); err != nil {
		return 0, err
	}
	defer c.do("cuEventDestroy", func() Result { return cuEventDestroy(start) })
	if err := c.do("cuEventCreate", func() Result { return cuEventCreate(&end, 0) }); err != nil {
		return 0, err
	}
	defer c.do("cuEventDestroy", func() Result { return cuEventDestroy(end) })
	if err := c.do("cuEventRecord", func() Result { return cuEventRecord(start, 0) }); err != nil {
		return 0, err
	}
	if err := f(); err != nil {
		c.Synchronize()
		return 0, err
	}
	if err := c.do("cuEventRecord", func() Result { return cuEventRecord(end, 0) }); err != nil {
		return 0, err
	}
	if err := c.do("cuEventSynchronize", func() Result { return cuEventSynchronize(end) }); err != nil {
		return 0, err
	}
	var ms float32
	if err := c.do("cuEventElapsedTime", func() Result { return cuEventElapsedTime(&ms, start, end) }); err != nil {
		return 0, err
	}
	return time.Duration(float64(ms) * float64(time.Millisecond)), nil
}

// attrMaxDynamicShared is CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.
const attrMaxDynamicShared = 8

// SetMaxShared raises the dynamic shared memory the kernel may be launched
// with to bytes. Up to 48 KB needs no call; above, every GPU since Volta
// takes more (up to 227 KB a block on an H100, 163 KB on an A100, 99 KB
// on Ada) only when asked for it first, and a launch that asks for more
// without fails.
func (k *Kernel) SetMaxShared(bytes int) error {
	if err := loadMore(); err != nil {
		return err
	}
	return k.m.c.do("cuFuncSetAttribute", func() Result { return cuFuncSetAttribute(k.fn, attrMaxDynamicShared, int32(bytes)) })
}
