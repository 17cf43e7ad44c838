#!/bin/sh
# Batch benchmark (make bench-batch): N molecules (default 100,000) as one
# gzip-compressed SD file, posted as one batch to a fresh molgraph server and
# timed from POST to "succeeded" (molgraph import prints it), with the
# server's peak RSS and the CPU time it used (user+system, from
# /proc/<pid>/stat: less sensitive to other load than the wall time); then the same file through a single-process Python
# RDKit loop with no storage (chem/testdata/bench_python.py).
#
# Durability side by side (issue 15): with SYNC=both (the default) each
# round runs the batch on a fresh server with --sync-writes=true and on
# another with --sync-writes=false, alternating which goes first, and the
# summary prints the ratio on/off of the wall times and of the server CPU
# (summed over the rounds). SYNC=true or SYNC=false runs only that one.
#
# Structure search side by side (issue 17): with FP=both each round also
# runs the batch on a fresh server with --structure-search=false (no
# fingerprints, pickles or search entries computed or stored), alternating
# the order likewise, and the summary prints the ratio with/without of the
# wall times and of the server CPU (the goal: within 1.10). FP=true (the
# default) runs with structure search only, FP=false without only. SYNC
# and FP combine: SYNC=both FP=both runs four servers per round.
#
# Environment: N (records), ROUNDS (default 1), SYNC (both, true, false),
# FP (true, both, false),
# PYTHON (1: run the Python loop, default; 0: skip it), WORK (directory kept
# for inspection; default a fresh temporary one), PORT (default 18181).
set -eu
N=${N:-100000}
ROUNDS=${ROUNDS:-1}
SYNC=${SYNC:-both}
FP=${FP:-true}
PYTHON=${PYTHON:-1}
PORT=${PORT:-18181}
WORK=${WORK:-$(mktemp -d /tmp/molgraph-bench.XXXXXX)}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KEY=bench-key-0123456789abcdefghijklmnopqrstuvwxyz0123456789
case $SYNC in both | true | false) ;; *)
	echo "SYNC must be both, true or false" >&2
	exit 2
	;;
esac
case $FP in both | true | false) ;; *)
	echo "FP must be both, true or false" >&2
	exit 2
	;;
esac
cd "$ROOT"
go build -o "$WORK/molgraph" ./cmd/molgraph
SDF="$WORK/bench-$N.sdf.gz"
[ -f "$SDF" ] || go run ./jobs/batch/benchgen -n "$N" -o "$SDF"
echo "input: $(ls -l "$SDF" | awk '{print $5}') bytes gzip, $N records; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"

# one SYNC FP: a fresh server with --sync-writes=$1 --structure-search=$2,
# the batch, and a line "sync=$1 fp=$2 wall=<s> cpu=<s>" appended to
# $WORK/results.
one() {
	rm -rf "$WORK/data"
	MOLGRAPH_API_KEY=$KEY "$WORK/molgraph" serve --addr "127.0.0.1:$PORT" --data-dir "$WORK/data" \
		--sync-writes="$1" --structure-search="$2" --max-body 4GiB --read-timeout 30m --log-format text \
		2>"$WORK/server-sync-$1-fp-$2.log" >/dev/null &
	PID=$!
	trap 'kill $PID 2>/dev/null || true' EXIT
	until curl -sf "http://127.0.0.1:$PORT/readyz" >/dev/null; do sleep 0.2; done
	CPU0=$(awk '{print $14+$15}' /proc/$PID/stat)
	T0=$(date +%s.%N)
	printf 'sync-writes=%s structure-search=%s: ' "$1" "$2"
	"$WORK/molgraph" import --server "http://127.0.0.1:$PORT/" --key "$KEY" --poll 100ms --quiet "$SDF" 2>/dev/null
	T1=$(date +%s.%N)
	CPU1=$(awk '{print $14+$15}' /proc/$PID/stat)
	TCK=$(getconf CLK_TCK)
	echo "  server: peak RSS $(awk '/VmHWM/ {print $2, $3}' /proc/$PID/status), CPU $(awk -v t="$TCK" -v c="$((CPU1 - CPU0))" -v n="$N" 'BEGIN {printf "%.1f s (%.0f us per record)", c / t, 1e6 * c / t / n}'); load $(cut -d' ' -f1-3 /proc/loadavg)"
	awk -v s="$1" -v f="$2" -v a="$T0" -v b="$T1" -v t="$TCK" -v c="$((CPU1 - CPU0))" 'BEGIN {printf "sync=%s fp=%s wall=%.3f cpu=%.2f\n", s, f, b - a, c / t}' >>"$WORK/results"
	kill $PID
	wait $PID 2>/dev/null || true
	trap - EXIT
}

# values VAR r: the values of SYNC or FP ($1) to run in round r, both
# alternating which goes first.
values() {
	case $1 in
	both) if [ $(($2 % 2)) -eq 0 ]; then echo "true false"; else echo "false true"; fi ;;
	*) echo "$1" ;;
	esac
}

: >"$WORK/results"
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	for f in $(values "$FP" "$r"); do
		for s in $(values "$SYNC" "$r"); do
			one "$s" "$f"
		done
	done
	r=$((r + 1))
done
# ratio KEY: wall and CPU of the runs with KEY=true over those with
# KEY=false, summed over the runs of each (the other setting held to its
# first value, so that both sides pair the same runs).
ratio() {
	awk -v key="$1" -v name="$2" -v goal="$3" '
		{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		{ other = key == "sync" ? "fp" : "sync"; if (!(other in keep)) keep[other] = v[other] }
		v[other] == keep[other] { W[v[key]] += v["wall"]; C[v[key]] += v["cpu"]; n[v[key]]++ }
		END {printf "%s over %d round(s): wall %.1f s / %.1f s = %.3f, server CPU %.1f s / %.1f s = %.3f (goal: wall within %s)\n",
			name, n["true"], W["true"], W["false"], W["true"] / W["false"], C["true"], C["false"], C["true"] / C["false"], goal}' "$WORK/results"
}
if [ "$SYNC" = both ]; then
	ratio sync "durability: sync-writes on/off" 1.10
fi
if [ "$FP" = both ]; then
	ratio fp "structure search: with/without fingerprints" 1.10
fi
if [ "$PYTHON" = 1 ]; then
	/usr/bin/python3 chem/testdata/bench_python.py "$SDF"
fi
echo "work directory: $WORK"
