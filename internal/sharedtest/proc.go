package sharedtest

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

// Proc is a live process as /proc shows it.
type Proc struct {
	Pid, PPid int
	Args      []string // its command line
}

// Procs lists the live processes (zombies excluded) for which keep
// returns true, read from /proc; processes that exit while it reads are
// skipped.
func Procs(keep func(Proc) bool) []Proc {
	ents, _ := os.ReadDir("/proc")
	var out []Proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		p, ok := readProc(pid)
		if ok && keep(p) {
			out = append(out, p)
		}
	}
	return out
}

// Running reports whether process pid exists and is not a zombie (a
// killed process whose parent has not reaped it yet counts as gone).
func Running(pid int) bool {
	_, ok := readProc(pid)
	return ok
}

// GoneWithin polls until process pid no longer runs, at most d; it
// reports whether it is gone.
func GoneWithin(pid int, d time.Duration) bool {
	for end := time.Now().Add(d); ; time.Sleep(10 * time.Millisecond) {
		if !Running(pid) {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

func readProc(pid int) (Proc, bool) {
	dir := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return Proc{}, false
	}
	// Fields after the command name, which is in parentheses and may hold
	// anything: state, ppid, ...
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return Proc{}, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 2 || f[0] == "Z" || f[0] == "X" {
		return Proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	cmd, err := os.ReadFile(dir + "/cmdline")
	if err != nil {
		return Proc{}, false
	}
	args := strings.Split(strings.TrimRight(string(cmd), "\x00"), "\x00")
	return Proc{Pid: pid, PPid: ppid, Args: args}, true
}

// WaitProc polls /proc until a live process for which match returns true
// appears, at most d, or until stop is closed or receives; it reports
// whether one was found.
func WaitProc(match func(Proc) bool, d time.Duration, stop <-chan error) (Proc, bool) {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if ps := Procs(match); len(ps) > 0 {
			return ps[0], true
		}
		select {
		case <-stop:
			return Proc{}, false
		default:
		}
	}
	return Proc{}, false
}
