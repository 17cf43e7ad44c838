package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/molgraph/molgraph/handlers"
	"github.com/molgraph/molgraph/queries/graphql"
)

func envOf(m map[string]string) env {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestServeConfigDefaults(t *testing.T) {
	c, err := loadServeConfig(nil, io.Discard, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := serveConfig{addr: ":8080", dataDir: "./data", baseIRI: "http://localhost:8080/", store: "badger",
		maxBody: 64 << 20, maxJSONBody: 1 << 20, readHeaderTimeout: 10 * time.Second, readTimeout: 5 * time.Minute,
		writeTimeout: 10 * time.Minute, idleTimeout: 2 * time.Minute, shutdownTimeout: 30 * time.Second,
		sparqlTimeout: 30 * time.Second, searchTimeout: 30 * time.Second, searchJobTimeout: 10 * time.Minute, searchCacheMolecules: 50_000, sparqlMaxRows: 100_000, graphqlMaxDepth: 10, graphqlMaxCost: 10_000,
		graphqlMaxTokens: graphql.DefaultMaxTokens, graphqlMaxSelections: graphql.DefaultMaxSelections,
		jobWorkers: 1, batchMaxRecords: 100_000, tmpDir: "data/tmp", vinaTimeout: 30 * time.Minute,
		rateLimit: 200, rateBurst: 400, maxInFlight: "sparql=8,graphql=8,chem=32,upload=8,qm=4,receptor=2,docking=8,export=2",
		admissionWait: 2 * time.Second, maxJobsPerKey: 16, maxJobs: 256,
		logLevel: slog.LevelInfo, logFormat: "json"}
	want.sparqlMaxQuery = 1 << 20
	want.chemNice = 10
	want.procsPerCPU = 2
	// durability, disk and upload limits
	want.syncWrites, want.minFreeDisk, want.blobGCInterval, want.blobGCGrace = true, 1<<30, 10*time.Minute, time.Hour
	want.columnsMaxTriples = 32 << 20
	want.uploads = handlers.UploadLimits{MaxDecompressedBytes: 512 << 20, MaxSpoolBytes: 576 << 20, MaxSMILESLineBytes: 64 << 10, MaxSDRecordBytes: 1 << 20}
	want.sparqlMaxLiteral = 1 << 20
	want.chem3D = chem3DConfig{maxHeavyAtoms: 100, maxRotatableBonds: 30, maxAttempts: 200, mmffIters: 2000,
		timeout: 20 * time.Second, mode: "process", memory: 1 << 30, max2DHeavyAtoms: 300}
	want.sparqlMaxMemory = 256 << 20
	want.structureSearch = true
	want.nats = natsConfig{url: "embedded", deployment: "molgraph", ackWait: time.Minute, queue: "local",
		listen: "127.0.0.1:4222", localSlots: -1}
	if c != want {
		t.Fatalf("defaults\n got %+v\nwant %+v", c, want)
	}
}

func TestServeConfigPrecedence(t *testing.T) {
	e := envOf(map[string]string{
		"MOLGRAPH_ADDR": "127.0.0.1:9000", "MOLGRAPH_DATA_DIR": "/srv/mg", "MOLGRAPH_MAX_BODY": "10MB",
		"MOLGRAPH_MAX_JSON_BODY": "2KiB", "MOLGRAPH_STORE": "Memory", "MOLGRAPH_LOG_LEVEL": "debug",
		"MOLGRAPH_API_KEY": "k", "MOLGRAPH_SYNC_WRITES": "yes", "MOLGRAPH_WRITE_TIMEOUT": "1h",
		"MOLGRAPH_SPARQL_TIMEOUT": "2s", "MOLGRAPH_SPARQL_MAX_ROWS": "50", "MOLGRAPH_TMP_DIR": "/scratch/mg",
		"MOLGRAPH_VINA_WORKERS": "3", "MOLGRAPH_VINA_TIMEOUT": "90s",
	})
	c, err := loadServeConfig([]string{"--addr", ":7000", "--max-body=1048576"}, io.Discard, e)
	if err != nil {
		t.Fatal(err)
	}
	if c.addr != ":7000" || c.dataDir != "/srv/mg" || c.maxBody != 1<<20 || c.maxJSONBody != 2048 ||
		c.store != "memory" || c.logLevel != slog.LevelDebug || c.apiKey != "k" || !c.syncWrites || c.writeTimeout != time.Hour ||
		c.sparqlTimeout != 2*time.Second || c.sparqlMaxRows != 50 || c.tmpDir != "/scratch/mg" ||
		c.vinaWorkers != 3 || c.vinaTimeout != 90*time.Second {
		t.Fatalf("got %+v", c)
	}
	// 10MB is decimal: 10,000,000 bytes.
	c, err = loadServeConfig(nil, io.Discard, e)
	if err != nil || c.maxBody != 10_000_000 {
		t.Fatalf("env max body: %d %v", c.maxBody, err)
	}
}

func TestServeConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
	}{
		{"bad store", []string{"--store", "postgres"}, nil},
		{"bad size", nil, map[string]string{"MOLGRAPH_MAX_BODY": "lots"}},
		{"zero size", []string{"--max-body", "0"}, nil},
		{"bad duration", []string{"--read-timeout", "5"}, nil},
		{"negative duration", []string{"--idle-timeout", "-1s"}, nil},
		{"bad level", nil, map[string]string{"MOLGRAPH_LOG_LEVEL": "loud"}},
		{"bad base", []string{"--base-iri", "example.org"}, nil},
		{"json over body", []string{"--max-body", "1KiB", "--max-json-body", "2KiB"}, nil},
		{"unknown flag", []string{"--port", "1"}, nil},
		{"positional", []string{"extra"}, nil},
		{"bad bool", nil, map[string]string{"MOLGRAPH_SYNC_WRITES": "maybe"}},
		{"bad sparql timeout", nil, map[string]string{"MOLGRAPH_SPARQL_TIMEOUT": "soon"}},
		{"zero row cap", nil, map[string]string{"MOLGRAPH_SPARQL_MAX_ROWS": "0"}},
		{"bad row cap", []string{"--sparql-max-rows", "many"}, nil},
		{"negative graphql depth", []string{"--graphql-max-depth", "-3"}, nil},
		{"negative rate", []string{"--rate-limit", "-1"}, nil},
		{"bad rate", nil, map[string]string{"MOLGRAPH_RATE_LIMIT": "fast"}},
		{"negative burst", []string{"--rate-burst", "-1"}, nil},
		{"bad in-flight class", []string{"--max-in-flight", "sparql=2,bogus=1"}, nil},
		{"bad in-flight value", nil, map[string]string{"MOLGRAPH_MAX_IN_FLIGHT": "chem=lots"}},
		{"negative wait", []string{"--admission-wait", "-1s"}, nil},
		{"bad job cap", []string{"--max-jobs-per-key", "x"}, nil},
		{"negative vina workers", []string{"--vina-workers", "-1"}, nil},
		{"zero vina timeout", nil, map[string]string{"MOLGRAPH_VINA_TIMEOUT": "0s"}},
	}
	for _, tt := range tests {
		_, err := loadServeConfig(tt.args, io.Discard, envOf(tt.env))
		if !errors.Is(err, errUsage) {
			t.Errorf("%s: err = %v, want a usage error", tt.name, err)
		}
	}
}

// TestServeConfigChem3D: the 3D limits from flags and environment, and
// their errors.
func TestServeConfigChem3D(t *testing.T) {
	c, err := loadServeConfig([]string{"--chem-3d-max-heavy-atoms", "60", "--chem-3d-mode", "threads"}, io.Discard,
		envOf(map[string]string{"MOLGRAPH_CHEM_3D_TIMEOUT": "5s", "MOLGRAPH_CHEM_3D_MEMORY": "512MiB", "MOLGRAPH_CHEM_3D_WORKERS": "1"}))
	if err != nil {
		t.Fatal(err)
	}
	if want := (chem3DConfig{maxHeavyAtoms: 60, maxRotatableBonds: 30, maxAttempts: 200, mmffIters: 2000, workers: 1,
		timeout: 5 * time.Second, mode: "threads", memory: 512 << 20, max2DHeavyAtoms: 300}); c.chem3D != want {
		t.Errorf("got %+v, want %+v", c.chem3D, want)
	}
	for _, args := range [][]string{{"--chem-3d-mode", "fork"}, {"--chem-3d-max-rotatable-bonds", "0"},
		{"--chem-3d-timeout", "-1s"}, {"--chem-3d-workers", "x"}, {"--chem-3d-memory", "lots"}} {
		if _, err := loadServeConfig(args, io.Discard, envOf(nil)); !errors.Is(err, errUsage) {
			t.Errorf("%v: error %v, want a usage error", args, err)
		}
	}
}

// TestREADMEListsOptions keeps the README's configuration table true: every
// option of serve appears there with its flag, environment variable and
// default.
func TestREADMEListsOptions(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range serveOptions() {
		def := o.def
		if o.flag == "tmp-dir" && def == "" {
			def = "<data-dir>/tmp"
		}
		row := fmt.Sprintf("| `--%s` | `%s` | `%s` |", o.flag, o.env, def)
		if !strings.Contains(string(readme), row) {
			t.Errorf("README.md lacks the row %s", row)
		}
	}
}

// TestQueueConfig: the queue options parse, and mistakes are usage errors
// naming the option.
func TestQueueConfig(t *testing.T) {
	c, err := loadServeConfig([]string{"--queue", "nats", "--nats-url", "nats://a:4222,nats://b:4222", "--local-slots", "0",
		"--nats-ack-wait", "4s", "--nats-replicas", "3"}, io.Discard, envOf(map[string]string{"MOLGRAPH_NATS_DEPLOYMENT": "lab-1"}))
	if err != nil {
		t.Fatal(err)
	}
	if n := c.nats; n.queue != "nats" || n.url != "nats://a:4222,nats://b:4222" || n.localSlots != 0 || n.ackWait != 4*time.Second ||
		n.replicas != 3 || n.deployment != "lab-1" {
		t.Errorf("nats config %+v", n)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--queue", "redis"}, "queue"},
		{[]string{"--local-slots", "-2"}, "local-slots"},
		{[]string{"--nats-deployment", "a.b"}, "nats-deployment"},
		{[]string{"--nats-tls-cert", "c.pem"}, "nats-tls-key"},
		{[]string{"--nats-ack-wait", "soon"}, "nats-ack-wait"},
	} {
		_, err := loadServeConfig(tc.args, io.Discard, envOf(nil))
		if !errors.Is(err, errUsage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want a usage error naming %s", tc.args, err, tc.want)
		}
	}
}
