package quadstore

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"golang.org/x/sys/unix"
)

// Badger maps every table file (*.sst) into the process, shared, and
// writes new tables through their mapping; it has no option to read
// tables otherwise (v4.9.6: table.CreateTable and OpenTable always use
// z.OpenMmapFile). So every table a load writes, and every table a
// compaction reads, stays in the process's resident set until Badger
// deletes the file: measured at 1.7 GB of a 2.9 GB peak during a
// 100,000-molecule batch, more than the store's size on disk because a
// compaction's inputs and outputs are mapped at once. The pages belong to
// the page cache, which the kernel reclaims under pressure, but they count
// as the process's RSS, and a service sized by its RSS would be sized for
// the whole store.
//
// trimTables checks the process's resident set every interval and, when it
// is above limit bytes, drops the process's page-table entries of the
// tables (madvise MADV_DONTNEED on their shared file mappings): the data
// stays in the page cache (or on disk), and the next access faults the page
// back in. Below the limit nothing is dropped: a read that faults its pages
// back in is some three times slower (measured on a store of a million
// quads), so the trimmer only holds a bulk load's resident set down. No
// Badger API exposes the mappings, so they are found in /proc/self/maps.
//
// Safety: DONTNEED on anonymous memory would zero it, so an advised range
// must still be a table mapping when madvise runs. The pass advises only
// the tables that are in Badger's LSM tree both before and after it opens
// an iterator over the whole store; an iterator holds a reference on every
// table in the tree when it is created (levelHandler.appendIterators), and
// table ids are never reused, so those tables stay mapped until the pass
// closes the iterator.
func (s *Store) trimTables(dir string, every time.Duration, limit int64) {
	defer close(s.trimDone)
	dir, err := filepath.Abs(dir)
	if err != nil {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-s.trimStop:
			return
		case <-t.C:
		}
		if limit < 0 || residentBytes() > limit {
			s.trimOnce(dir)
		}
	}
}

// residentBytes is the process's resident set size (0 if unknown).
func residentBytes() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}

// trimOnce advises the mappings of the tables in the LSM tree; it returns
// how many bytes of mappings it advised.
func (s *Store) trimOnce(dir string) int64 {
	before := s.tableIDs()
	txn := s.db.NewTransactionAt(s.readTs.Load(), false)
	defer txn.Discard()
	it := txn.NewIterator(badger.IteratorOptions{}) // references every table
	defer it.Close()
	pinned := s.tableIDs()
	for id := range pinned {
		if !before[id] {
			delete(pinned, id)
		}
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0
	}
	defer f.Close()
	var advised int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasSuffix(line, []byte(".sst")) {
			continue
		}
		// address perms offset dev inode path
		fields := strings.Fields(string(line))
		if len(fields) != 6 || len(fields[1]) != 4 || fields[1][3] != 's' || filepath.Dir(fields[5]) != dir {
			continue
		}
		id, err := strconv.ParseUint(strings.TrimSuffix(filepath.Base(fields[5]), ".sst"), 10, 64)
		if err != nil || !pinned[id] {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		a, err1 := strconv.ParseUint(lo, 16, 64)
		b, err2 := strconv.ParseUint(hi, 16, 64)
		if !ok || err1 != nil || err2 != nil || b <= a {
			continue
		}
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, uintptr(a), uintptr(b-a), unix.MADV_DONTNEED); errno == 0 {
			advised += int64(b - a)
		}
	}
	return advised
}

func (s *Store) tableIDs() map[uint64]bool {
	ids := make(map[uint64]bool)
	for _, t := range s.db.Tables() {
		ids[t.ID] = true
	}
	return ids
}
