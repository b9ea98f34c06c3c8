package unit10

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
// unit00.ErrInvalid and says what it is ("is a directory", "a named pipe
// (FIFO)", "a socket", "a character device", "a block device"), found with Stat before the file is opened, since opening a
// FIFO waits for ever for a writer; an empty file is the error Parse gives for no bytes
// (wrapping unit00.ErrTruncated), since a mapping cannot be empty; any
// parse error is returned after the mapping has been released, so a failed
// Open leaks nothing. The file must not be truncated or rewritten while it
// is mapped: the operating system would kill the process on a read of a
// page that is gone (SIGBUS).
//
// Where there is no mmap (Windows), Open reads the whole file into memory
// with os.ReadFile instead: put each version in its own file, with build
// constraints (//go:build unix, //go:build !unix).
func Open(path string) (*File, error) {
	panic("TODO(10.2): write Open, see docs/unit10.md")
}
