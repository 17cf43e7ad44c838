package subproc

import (
	"os"
	"strings"
)

// Environ is the environment every child gets: the server's variables
// that programs need to run (the search path, home, locale, time zone,
// temporary directory, the dynamic loader's path, Open Babel's data
// directories, the Go runtime's settings for our own helper binary), and
// nothing else. The server's configuration lives in MOLGRAPH_* variables,
// among them the bootstrap API key and credentials, which a child has no
// use for and must not be able to read (/proc/<pid>/environ of a child is
// readable by its user, and a crash report may print it).
func Environ() []string {
	env := []string{} // never nil: a nil exec.Cmd.Env inherits everything
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if passedToChildren(name) {
			env = append(env, kv)
		}
	}
	return env
}

// passedToChildren reports whether a variable is passed on (Environ).
func passedToChildren(name string) bool {
	switch name {
	case "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "LD_LIBRARY_PATH",
		"BABEL_DATADIR", "BABEL_LIBDIR", "GOMAXPROCS", "GOGC", "GOMEMLIMIT", "GODEBUG":
		return true
	}
	return strings.HasPrefix(name, "LC_")
}
