package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/molgraph/molgraph/chem"
)

// errUsage marks command-line mistakes (exit status 2).
var errUsage = errors.New("usage")

// env looks up an environment variable (os.LookupEnv, replaceable in tests).
type env func(string) (string, bool)

// command is one subcommand.
type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer, getenv env) error
}

// commands lists the subcommands. Later: import, export.
func commands() []command {
	return []command{
		{"serve", "run the HTTP service", serve},
		{"keys", "manage API keys: create, list, revoke", keysCmd},
		{"import", "upload an SD or SMILES file to a running server as a batch job, with progress", importCmd},
		{"export", "write the whole graph to a file (N-Quads, N-Triples, Turtle, JSON-LD)", exportCmd},
		{"dock", "submit a docking job to a running server and follow it until done, then print the results", dockCmd},
		{"worker", "dock units from NATS JetStream for a serve --queue nats (no graph access)", workerCmd},
		{"workers", "show the live workers and the queued and in-flight units of a NATS deployment", workersCmd},
	}
}

// embedHelperCommand is the hidden subcommand that makes this binary a 3D
// embedding helper process (chem.RunEmbedHelper), started by the chem pool
// of "serve" with --chem-3d-mode=process.
const embedHelperCommand = "chem-embed-helper"

func main() {
	if len(os.Args) == 2 && os.Args[1] == embedHelperCommand {
		if err := chem.RunEmbedHelper(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintf(os.Stderr, "molgraph %s: %v\n", embedHelperCommand, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, stop, os.Args[1:], os.Stdout, os.Stderr, os.LookupEnv)
	stop()
	os.Exit(code)
}

// run executes a command line and returns the exit status: 0 success,
// 1 failure, 2 usage error. stop, if not nil, restores default signal
// handling (so that a second Ctrl-C kills a server that is shutting down).
func run(ctx context.Context, stop func(), args []string, stdout, stderr io.Writer, getenv env) int {
	ctx = context.WithValue(ctx, stopKey{}, stop)
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, args[1:], stdout, stderr, getenv)
		switch {
		case err == nil:
			return 0
		case errors.Is(err, errHelp):
			return 0
		case errors.Is(err, errUsage):
			fmt.Fprintf(stderr, "molgraph %s: %v\n", c.name, err)
			return 2
		default:
			fmt.Fprintf(stderr, "molgraph %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "molgraph: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

type stopKey struct{}

// stopSignals restores default signal handling, if run was given a stop.
func stopSignals(ctx context.Context) {
	if stop, _ := ctx.Value(stopKey{}).(func()); stop != nil {
		stop()
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "molgraph: a chemistry knowledge-graph service\n\nUsage: molgraph <command> [flags]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun \"molgraph <command> -h\" for the flags of a command.")
}
