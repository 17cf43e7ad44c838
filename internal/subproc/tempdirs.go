package subproc

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// TempDirs makes private working directories under one root. A nil
// *TempDirs uses DefaultRoot without sweeping it.
type TempDirs struct {
	root string
	tag  string // "<pid>.<start>." of this process
}

// DefaultRoot is the root of a nil *TempDirs: molgraph under the system's
// temporary directory.
func DefaultRoot() string { return filepath.Join(os.TempDir(), "molgraph") }

// OpenTempDirs creates root (mode 0700) if needed and removes the
// directories that processes no longer running left in it (Sweep).
func OpenTempDirs(root string) (*TempDirs, int, error) {
	if root == "" {
		root = DefaultRoot()
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, 0, fmt.Errorf("temp dirs: %w", err)
	}
	t := &TempDirs{root: root, tag: selfTag()}
	n, err := t.Sweep()
	return t, n, err
}

// Root is the directory holding the temporary directories.
func (t *TempDirs) Root() string {
	if t == nil {
		return DefaultRoot()
	}
	return t.root
}

// Make creates a new directory <root>/<pid>.<start>.<prefix>-<random>
// (mode 0700); the caller removes it (os.RemoveAll) when its run ends.
func (t *TempDirs) Make(prefix string) (string, error) {
	root, tag := t.Root(), selfTag()
	if t != nil {
		tag = t.tag
	} else if err := os.MkdirAll(root, 0o700); err != nil {
		return "", fmt.Errorf("temp dir: %w", err)
	}
	dir, err := os.MkdirTemp(root, tag+prefix+"-*")
	if errors.Is(err, os.ErrNotExist) {
		// The root was removed under a running server (an operator
		// cleaning up): make it again rather than fail every run.
		if err = os.MkdirAll(root, 0o700); err == nil {
			dir, err = os.MkdirTemp(root, tag+prefix+"-*")
		}
	}
	if err != nil {
		return "", fmt.Errorf("temp dir: %w", err)
	}
	return dir, nil
}

// Sweep removes the entries of the root whose name says they belong to a
// process that no longer runs: its pid is gone, or is now another
// process (a different start time). Entries of live processes (this one
// included) and names not made by Make are left alone. It returns how many
// entries it removed.
func (t *TempDirs) Sweep() (int, error) {
	if _, err := processStart(os.Getpid()); err != nil {
		return 0, nil // no /proc: whether a process runs cannot be told
	}
	root := t.Root()
	ents, err := os.ReadDir(root)
	if err != nil {
		return 0, fmt.Errorf("temp dirs: sweep: %w", err)
	}
	n := 0
	var errs []error
	for _, e := range ents {
		pid, start, ok := parseTag(e.Name())
		if !ok {
			continue
		}
		if cur, err := processStart(pid); err == nil && cur == start {
			continue // still running
		}
		if err := os.RemoveAll(filepath.Join(root, e.Name())); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	if err := errors.Join(errs...); err != nil {
		return n, fmt.Errorf("temp dirs: sweep: %w", err)
	}
	return n, nil
}

// selfTag is "<pid>.<start>." for this process; the start time is 0 where
// /proc cannot tell it.
func selfTag() string {
	pid := os.Getpid()
	start, _ := processStart(pid)
	return strconv.Itoa(pid) + "." + strconv.FormatUint(start, 10) + "."
}

// parseTag reads the pid and start time at the head of a name made by
// Make.
func parseTag(name string) (pid int, start uint64, ok bool) {
	p, rest, ok1 := strings.Cut(name, ".")
	s, _, ok2 := strings.Cut(rest, ".")
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	pid, err1 := strconv.Atoi(p)
	start, err2 := strconv.ParseUint(s, 10, 64)
	if err1 != nil || err2 != nil || pid <= 0 {
		return 0, 0, false
	}
	return pid, start, true
}

// processStart returns the start time of process pid (field 22 of
// /proc/<pid>/stat, in clock ticks since boot): a pid and its start time
// name one process even when the pid is reused. An error means no such
// process (or no /proc); a zombie counts as no process.
func processStart(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces or
	// parentheses itself: the fields that follow start after the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	if f[0] == "Z" || f[0] == "X" { // f[0] is field 3, the state
		return 0, fmt.Errorf("process %d has exited", pid)
	}
	return strconv.ParseUint(f[19], 10, 64)
}
