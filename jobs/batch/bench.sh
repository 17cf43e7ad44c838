#!/bin/sh
# Batch benchmark (make bench-batch): N molecules (default 100,000) as one
# gzip-compressed SD file, posted as one batch to a fresh molgraph server and
# timed from POST to "succeeded" (molgraph import prints it), with the
# server's peak RSS and the CPU time it used (user+system, from
# /proc/<pid>/stat: less sensitive to other load than the wall time); then the same file through a single-process Python
# RDKit loop with no storage (chem/testdata/bench_python.py).
#
# Environment: N (records), WORK (directory kept for inspection; default a
# fresh temporary one), PORT (default 18181).
set -eu
N=${N:-100000}
PORT=${PORT:-18181}
WORK=${WORK:-$(mktemp -d /tmp/molgraph-bench.XXXXXX)}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KEY=bench-key-0123456789abcdefghijklmnopqrstuvwxyz0123456789
cd "$ROOT"
go build -o "$WORK/molgraph" ./cmd/molgraph
SDF="$WORK/bench-$N.sdf.gz"
[ -f "$SDF" ] || go run ./jobs/batch/benchgen -n "$N" -o "$SDF"
rm -rf "$WORK/data"
MOLGRAPH_API_KEY=$KEY "$WORK/molgraph" serve --addr "127.0.0.1:$PORT" --data-dir "$WORK/data" \
	--max-body 4GiB --read-timeout 30m --log-format text 2>"$WORK/server.log" >/dev/null &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
until curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null; do sleep 0.2; done
echo "input: $(ls -l "$SDF" | awk '{print $5}') bytes gzip, $N records; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
CPU0=$(awk '{print $14+$15}' /proc/$PID/stat)
"$WORK/molgraph" import --server "http://127.0.0.1:$PORT/" --key "$KEY" --poll 1s "$SDF"
CPU1=$(awk '{print $14+$15}' /proc/$PID/stat)
echo "server: peak RSS $(awk '/VmHWM/ {print $2, $3}' /proc/$PID/status), CPU $(awk -v t="$(getconf CLK_TCK)" -v c="$((CPU1 - CPU0))" -v n="$N" 'BEGIN {printf "%.1f s (%.0f us per record)", c / t, 1e6 * c / t / n}'); load $(cut -d' ' -f1-3 /proc/loadavg)"
kill $PID
wait $PID 2>/dev/null || true
trap - EXIT
/usr/bin/python3 chem/testdata/bench_python.py "$SDF"
echo "work directory: $WORK"
