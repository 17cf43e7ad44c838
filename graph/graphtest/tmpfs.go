package graphtest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// MountTmpfs mounts a tmpfs of size bytes on a new temporary directory for
// the test and unmounts it at the end (after the test's own cleanups that
// were registered later, such as closing a store in it). It skips the test
// where mounting is not allowed (not root, no CAP_SYS_ADMIN): a small file
// system is the honest way to fill a disk.
func MountTmpfs(t testing.TB, size int64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tmpfs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+itoa(size)); err != nil {
		t.Skipf("cannot mount a size-limited tmpfs here (%v): the disk-full test needs root", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

func itoa(n int64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		if n /= 10; n == 0 {
			break
		}
	}
	return string(b[i:])
}

// Fill writes a file of zeros in dir until the file system has about
// leave bytes free, and returns its path (remove it to free the space).
func Fill(t testing.TB, dir string, leave int64) string {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	path := filepath.Join(dir, "filler")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for n := free - leave; n > 0; n -= int64(len(chunk)) {
		if n < int64(len(chunk)) {
			chunk = chunk[:n]
		}
		if _, err := f.Write(chunk); err != nil {
			t.Fatalf("fill: %v", err)
		}
	}
	return path
}
