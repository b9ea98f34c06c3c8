//go:build linux

package cuda

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// The driver's functions, bound by Load. Their C types: CUresult is an
// int, CUdevice an int, CUcontext, CUmodule and CUfunction pointers,
// CUdeviceptr an unsigned 64-bit integer. The _v2 names are the ones
// cuda.h maps the plain names to since CUDA 4.
var (
	cuInit              func(flags uint32) Result
	cuDeviceGetCount    func(count *int32) Result
	cuDeviceGet         func(dev *int32, ordinal int32) Result
	cuDeviceGetName     func(name *byte, n int32, dev int32) Result
	cuDeviceGetAttr     func(v *int32, attr int32, dev int32) Result
	cuCtxCreate         func(ctx *uintptr, flags uint32, dev int32) Result
	cuCtxDestroy        func(ctx uintptr) Result
	cuCtxSetCurrent     func(ctx uintptr) Result
	cuCtxSynchronize    func() Result
	cuModuleLoadData    func(mod *uintptr, image *byte) Result
	cuModuleUnload      func(mod uintptr) Result
	cuModuleGetFunction func(fn *uintptr, mod uintptr, name *byte) Result
	cuMemAlloc          func(ptr *uint64, size uintptr) Result
	cuMemFree           func(ptr uint64) Result
	cuMemcpyHtoD        func(dst uint64, src unsafe.Pointer, n uintptr) Result
	cuMemcpyDtoH        func(dst unsafe.Pointer, src uint64, n uintptr) Result
	cuLaunchKernel      func(f uintptr, gx, gy, gz, bx, by, bz, shared uint32, stream uintptr, params, extra *unsafe.Pointer) Result
	cuGetErrorString    func(r Result, s **byte) Result
)

var (
	loadOnce sync.Once
	loadErr  error
)

// Load opens libcuda.so.1, binds the driver calls and initialises the
// driver, once per process. Its error wraps ErrNoDriver when there is no
// driver or no device.
func Load() error {
	loadOnce.Do(func() { loadErr = load() })
	return loadErr
}

func load() error {
	lib, err := purego.Dlopen("libcuda.so.1", purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoDriver, err)
	}
	for _, b := range []struct {
		fn   any
		name string
	}{
		{&cuInit, "cuInit"}, {&cuDeviceGetCount, "cuDeviceGetCount"}, {&cuDeviceGet, "cuDeviceGet"},
		{&cuDeviceGetName, "cuDeviceGetName"}, {&cuDeviceGetAttr, "cuDeviceGetAttribute"},
		{&cuCtxCreate, "cuCtxCreate_v2"}, {&cuCtxDestroy, "cuCtxDestroy_v2"},
		{&cuCtxSetCurrent, "cuCtxSetCurrent"}, {&cuCtxSynchronize, "cuCtxSynchronize"},
		{&cuModuleLoadData, "cuModuleLoadData"}, {&cuModuleUnload, "cuModuleUnload"},
		{&cuModuleGetFunction, "cuModuleGetFunction"}, {&cuMemAlloc, "cuMemAlloc_v2"},
		{&cuMemFree, "cuMemFree_v2"}, {&cuMemcpyHtoD, "cuMemcpyHtoD_v2"}, {&cuMemcpyDtoH, "cuMemcpyDtoH_v2"},
		{&cuLaunchKernel, "cuLaunchKernel"}, {&cuGetErrorString, "cuGetErrorString"},
	} {
		sym, err := purego.Dlsym(lib, b.name)
		if err != nil {
			return fmt.Errorf("%w: libcuda.so.1 has no %s: %v", ErrNoDriver, b.name, err)
		}
		purego.RegisterFunc(b.fn, sym)
	}
	if err := check("cuInit", cuInit(0)); err != nil {
		return fmt.Errorf("%w: %v", ErrNoDriver, err)
	}
	var n int32
	if err := check("cuDeviceGetCount", cuDeviceGetCount(&n)); err != nil {
		return fmt.Errorf("%w: %v", ErrNoDriver, err)
	}
	if n == 0 {
		return fmt.Errorf("%w: the driver sees no device", ErrNoDriver)
	}
	return nil
}

// check turns a status into an error naming the call, nil for success.
func check(call string, r Result) error {
	if r == 0 {
		return nil
	}
	text := "unknown error"
	var s *byte
	if cuGetErrorString != nil && cuGetErrorString(r, &s) == 0 && s != nil {
		text = cString(s)
	}
	return &Error{Call: call, Result: r, Text: text}
}

// cString copies the NUL-terminated C string at p.
func cString(p *byte) string {
	var b []byte
	for q := unsafe.Pointer(p); *(*byte)(q) != 0; q = unsafe.Add(q, 1) {
		b = append(b, *(*byte)(q))
	}
	return string(b)
}

// Context is a CUDA context on one device. The driver keeps a current
// context per OS thread, so every method locks the calling goroutine to
// its thread and makes the context current for the call.
type Context struct {
	ctx  uintptr
	dev  int32
	Name string // the device's name, as the driver gives it
	SMs  int    // its multiprocessors
}

// attrSMs is CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT.
const attrSMs = 16

// NewContext creates a context on device ordinal (0 for the first).
func NewContext(ordinal int) (*Context, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := &Context{}
	if err := check("cuDeviceGet", cuDeviceGet(&c.dev, int32(ordinal))); err != nil {
		return nil, err
	}
	name := make([]byte, 256)
	if err := check("cuDeviceGetName", cuDeviceGetName(&name[0], int32(len(name)), c.dev)); err != nil {
		return nil, err
	}
	c.Name = cString(&name[0])
	var sms int32
	if err := check("cuDeviceGetAttribute", cuDeviceGetAttr(&sms, attrSMs, c.dev)); err != nil {
		return nil, err
	}
	c.SMs = int(sms)
	if err := check("cuCtxCreate", cuCtxCreate(&c.ctx, 0, c.dev)); err != nil {
		return nil, err
	}
	return c, nil
}

// do runs f with c current on this goroutine's thread.
func (c *Context) do(call string, f func() Result) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := check("cuCtxSetCurrent", cuCtxSetCurrent(c.ctx)); err != nil {
		return err
	}
	return check(call, f())
}

// Close destroys the context and everything allocated in it.
func (c *Context) Close() error {
	return check("cuCtxDestroy", cuCtxDestroy(c.ctx))
}

// Buffer is device memory of a size in bytes.
type Buffer struct {
	ptr  uint64
	size int
}

// Alloc allocates size bytes of device memory.
func (c *Context) Alloc(size int) (Buffer, error) {
	b := Buffer{size: size}
	err := c.do("cuMemAlloc", func() Result { return cuMemAlloc(&b.ptr, uintptr(size)) })
	return b, err
}

// Free releases b.
func (c *Context) Free(b Buffer) error {
	return c.do("cuMemFree", func() Result { return cuMemFree(b.ptr) })
}

// CopyIn copies the float32s of src to the start of b.
func (c *Context) CopyIn(b Buffer, src []float32) error {
	n := 4 * len(src)
	if n > b.size {
		return fmt.Errorf("cuda: CopyIn of %d bytes into a buffer of %d", n, b.size)
	}
	if n == 0 {
		return nil
	}
	return c.do("cuMemcpyHtoD", func() Result { return cuMemcpyHtoD(b.ptr, unsafe.Pointer(&src[0]), uintptr(n)) })
}

// CopyOut copies the start of b into the float32s of dst.
func (c *Context) CopyOut(dst []float32, b Buffer) error {
	n := 4 * len(dst)
	if n > b.size {
		return fmt.Errorf("cuda: CopyOut of %d bytes from a buffer of %d", n, b.size)
	}
	if n == 0 {
		return nil
	}
	return c.do("cuMemcpyDtoH", func() Result { return cuMemcpyDtoH(unsafe.Pointer(&dst[0]), b.ptr, uintptr(n)) })
}

// Module is PTX loaded into a context: the driver compiles it for the
// device when it is loaded.
type Module struct {
	c   *Context
	mod uintptr
}

// Load loads a module from PTX text.
func (c *Context) Load(ptx string) (*Module, error) {
	image := append([]byte(ptx), 0)
	m := &Module{c: c}
	err := c.do("cuModuleLoadData", func() Result { return cuModuleLoadData(&m.mod, &image[0]) })
	runtime.KeepAlive(image)
	return m, err
}

// Unload releases the module.
func (m *Module) Unload() error {
	return m.c.do("cuModuleUnload", func() Result { return cuModuleUnload(m.mod) })
}

// Kernel is one entry point of a module.
type Kernel struct {
	m  *Module
	fn uintptr
}

// Kernel finds the entry point called name.
func (m *Module) Kernel(name string) (*Kernel, error) {
	cname := append([]byte(name), 0)
	k := &Kernel{m: m}
	err := m.c.do("cuModuleGetFunction", func() Result { return cuModuleGetFunction(&k.fn, m.mod, &cname[0]) })
	return k, err
}

// Dim3 is a grid or block size.
type Dim3 struct{ X, Y, Z int }

// Launch runs the kernel on grid × block threads with shared bytes of
// dynamic shared memory and waits for it to finish. Each argument is a
// Buffer (passed as its device pointer), an int32, a uint32 or a float32,
// in the order of the kernel's parameters.
func (k *Kernel) Launch(grid, block Dim3, shared int, args ...any) error {
	if err := k.Enqueue(grid, block, shared, args...); err != nil {
		return err
	}
	return k.m.c.do("cuCtxSynchronize", cuCtxSynchronize)
}

// Enqueue queues the kernel on grid × block threads with shared bytes of
// dynamic shared memory and returns without waiting for it: Launch without
// its wait, for timing kernels back to back (Time). Its arguments are
// Launch's. A fault of the kernel shows in the next call that waits.
func (k *Kernel) Enqueue(grid, block Dim3, shared int, args ...any) error {
	vals := make([]uint64, len(args)) // each argument's bytes, kept here
	params := make([]unsafe.Pointer, len(args))
	for i, a := range args {
		switch x := a.(type) {
		case Buffer:
			vals[i] = x.ptr
		case int32:
			*(*int32)(unsafe.Pointer(&vals[i])) = x
		case uint32:
			*(*uint32)(unsafe.Pointer(&vals[i])) = x
		case float32:
			*(*float32)(unsafe.Pointer(&vals[i])) = x
		default:
			return fmt.Errorf("cuda: argument %d of the kernel is a %T; want a Buffer, int32, uint32 or float32", i, a)
		}
		params[i] = unsafe.Pointer(&vals[i])
	}
	var p *unsafe.Pointer
	if len(params) > 0 {
		p = &params[0]
	}
	// cuLaunchKernel copies the arguments when it queues the launch, so
	// they need to live only until it returns.
	err := k.m.c.do("cuLaunchKernel", func() Result {
		return cuLaunchKernel(k.fn, uint32(grid.X), uint32(grid.Y), uint32(grid.Z),
			uint32(block.X), uint32(block.Y), uint32(block.Z), uint32(shared), 0, p, nil)
	})
	runtime.KeepAlive(vals)
	runtime.KeepAlive(params)
	return err
}
