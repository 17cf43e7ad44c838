//go:build unix

package auth

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// lockPath takes an exclusive flock on path (created 0600 if missing) and
// returns the function that releases it. flock is advisory and released by
// the kernel if the process dies, so a crashed CLI never leaves the keys
// locked.
func lockPath(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock keys: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock keys: %w", err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// stampOf identifies a file version by inode, size and mtime.
func stampOf(st fs.FileInfo) stamp {
	s := stamp{size: st.Size(), mtime: st.ModTime()}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		s.ino = uint64(sys.Ino)
	}
	return s
}
