package graph

import (
	"errors"
	"fmt"
	"syscall"
)

// ErrNoSpace: the data directory's file system is full, or has less free
// space than Options.MinFreeBytes keeps in reserve. Nothing was stored;
// the write may succeed once space is freed.
var ErrNoSpace = errors.New("insufficient storage")

// Why a reserve and not only ENOSPC: Badger writes its memtable and value
// logs through memory mappings of sparse files, and a page that cannot be
// allocated on a full disk is a SIGBUS that kills the process, not an error.
// So writes are refused while free space is below the reserve (which covers
// a memtable log, a flushed table and a compaction's output), and a real
// ENOSPC from a plain write (blobs, spools) is reported as ErrNoSpace too.

// freeBytes returns the bytes available to an unprivileged user on the file
// system of dir.
func freeBytes(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

// space checks that dir's file system keeps at least min free bytes
// (min <= 0: no check).
func space(dir string, min int64) error {
	if dir == "" || min <= 0 {
		return nil
	}
	free, err := freeBytes(dir)
	if err != nil {
		return fmt.Errorf("check free space: %w", err)
	}
	if free < min {
		return fmt.Errorf("%w: %d bytes free in the data directory, %d kept in reserve", ErrNoSpace, free, min)
	}
	return nil
}

// noSpace marks an ENOSPC (or EDQUOT) as ErrNoSpace.
func noSpace(err error) error {
	if err == nil || errors.Is(err, ErrNoSpace) {
		return err
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return fmt.Errorf("%w: %w", ErrNoSpace, err)
	}
	return err
}
