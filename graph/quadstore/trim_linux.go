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
// trimTables checks every interval how much of the process's resident set
// is file-backed (RssFile: mostly the tables) and, when that is above limit
// bytes, drops the process's page-table entries of the tables (madvise
// MADV_DONTNEED on their shared file mappings): the data stays in the page
// cache (or on disk), and the next access faults the page back in. Below the
// limit nothing is dropped: a read that faults its pages back in is some
// three times slower (measured on a store of a million quads), so the
// trimmer bounds the table pages a bulk load leaves resident, not a read
// working set below the limit. No Badger API exposes the mappings, so they
// are found in /proc/self/maps.
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
		if limit < 0 || fileResidentBytes() > limit {
			s.trimOnce(dir)
		}
	}
}

// fileResidentBytes is the file-backed part of the process's resident set
// (RssFile in /proc/self/status; 0 if unknown).
func fileResidentBytes() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "RssFile:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
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
