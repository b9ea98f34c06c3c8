//go:build unix

package unit10

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/llmforge/forge/unit00"
)

// Open memory-maps the GGUF file at path read-only (unix.Mmap with
// PROT_READ and MAP_SHARED: pages are read from the page cache on first
// touch and shared with every other process mapping the file, so opening a
// model of several gigabytes costs no copy and no heap) and parses it with
// Parse, naming path in errors. File.Data is the mapping and tensor views
// point into it; Close releases it.
//
// Errors: those of os.Open and Stat as they come (a file it may not read
// wraps fs.ErrPermission, a missing file wraps
// fs.ErrNotExist); a path that is not a regular file wraps
// unit00.ErrInvalid and says what it is ("is a directory"), found before
// the file is opened (opening a FIFO would wait for a writer); an empty file is the error Parse gives for no bytes
// (wrapping unit00.ErrTruncated), since a mapping cannot be empty; any
// parse error is returned after the mapping has been released, so a failed
// Open leaks nothing. The file must not be truncated or rewritten while it
// is mapped: the operating system would kill the process on a read of a
// page that is gone (SIGBUS).
//
// On other operating systems Open reads the whole file into memory with
// os.ReadFile instead (see mmap_other.go).
func Open(path string) (*File, error) {
	// Stat before opening: opening a FIFO for reading blocks until a
	// writer comes, which may be never.
	if err := regularFile(path); err != nil {
		return nil, err
	}
	// O_NONBLOCK keeps even a FIFO swapped in after the Stat from
	// blocking; the second check below then refuses it.
	fd, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer fd.Close() // a mapping outlives the descriptor it was made from
	info, err := fd.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, notRegular(path, info.Mode())
	}
	size := info.Size()
	if size == 0 {
		return Parse(nil, path)
	}
	if int64(int(size)) != size {
		return nil, fmt.Errorf("%s: %d bytes is more than this platform can map: %w", path, size, unit00.ErrUnsupported)
	}
	data, err := unix.Mmap(int(fd.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("%s: mmap: %w", path, err)
	}
	f, err := Parse(data, path)
	if err != nil {
		if uerr := unix.Munmap(data); uerr != nil {
			return nil, fmt.Errorf("%w (and munmap: %v)", err, uerr)
		}
		return nil, err
	}
	f.unmap = func() error {
		if err := unix.Munmap(data); err != nil {
			return fmt.Errorf("%s: munmap: %w", path, err)
		}
		return nil
	}
	return f, nil
}
