//go:build !unix

package unit10

import "os"

// Open reads the GGUF file at path and parses it with Parse, naming path in
// errors. On unix systems the file is memory-mapped (see mmap_unix.go);
// here it is read whole into memory with os.ReadFile, so File.Data is an
// ordinary slice and Close only drops it.
//
// Errors: those of os.Stat and os.ReadFile as they come (a missing file
// wraps fs.ErrNotExist); a path that is not a regular file wraps
// unit00.ErrInvalid and says what it is; an empty file is the error Parse gives for no bytes
// (wrapping unit00.ErrTruncated); then any parse error.
func Open(path string) (*File, error) {
	if err := regularFile(path); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}
