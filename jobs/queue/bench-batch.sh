#!/bin/sh
# Scale-out batch benchmark (make bench-scale-batch; design M3): one batch
# upload (default RDKit's NCI sample, 4,999 SMILES) registered by
#   local - serve --queue local (chemistry in the server's pool),
#   nats  - serve --queue nats (embedded NATS server, --local-slots 0: no
#           chemistry of its own) and one `molgraph worker --kinds chem`,
# ROUNDS times in that order, each on a fresh data directory, timed from
# POST to "succeeded". Printed per run: wall time, the server's CPU seconds
# and CPU per record (in nats mode the coordinator's: planning and commits
# only), the worker's CPU, the load average; then the medians and the
# overhead. Exits non-zero if the counters differ.
#
# Environment: UPLOAD (a SMILES file), CHEM (chem threads of the server and
# of the worker; default 2), ROUNDS (1), WORK, PORT (default 18195; uses
# PORT..PORT+2), BIN (default bin/molgraph, built if missing). About 1 min
# per round for the NCI sample on 2 idle cores.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
UPLOAD=${UPLOAD:-/usr/share/RDKit/Data/NCI/first_5K.smi}
CHEM=${CHEM:-2}
ROUNDS=${ROUNDS:-1}
PORT=${PORT:-18195}
WORK=${WORK:-$(mktemp -d /tmp/molgraph-bench-scale-batch.XXXXXX)}
BIN=${BIN:-$ROOT/bin/molgraph}
. "$ROOT/jobs/queue/benchlib.sh"

# run MODE: one fresh server (and worker), one upload.
run() {
	d="$WORK/$1-$r"
	rm -rf "$d"
	mkdir -p "$d"
	url=http://127.0.0.1:$PORT
	if [ "$1" = nats ]; then
		set -- "$1" --queue nats --nats-listen "127.0.0.1:$((PORT + 1))" --local-slots 0
	else
		set -- "$1" --queue local
	fi
	mode=$1
	shift
	MOLGRAPH_API_KEY=$KEY "$BIN" serve --addr "127.0.0.1:$PORT" --data-dir "$d/data" --chem-workers "$CHEM" "$@" \
		--log-format text 2>"$d/server.log" >/dev/null &
	spid=$!
	PIDS="$PIDS $spid"
	until curl -sf "$url/readyz" >/dev/null; do
		kill -0 $spid 2>/dev/null || { cat "$d/server.log"; exit 1; }
		sleep 0.2
	done
	wpid=""
	if [ "$mode" = nats ]; then
		"$BIN" worker --nats-url "nats://127.0.0.1:$((PORT + 1))" --nats-creds "$d/data/nats/worker.nk" --kinds chem \
			--chem-workers "$CHEM" --name bench-chem --work-dir "$d/w" --log-format text 2>"$d/worker.log" >/dev/null &
		wpid=$!
		PIDS="$PIDS $wpid"
		waitworkers "nats://127.0.0.1:$((PORT + 1))" "$d/data/nats/worker.nk" 1
	fi
	l0=$(load)
	c0=$(cpu $spid)
	w0=0
	if [ -n "$wpid" ]; then w0=$(cpu $wpid); fi
	t0=$(now)
	job=$(api -H 'Content-Type: text/plain' --data-binary @"$UPLOAD" "$url/v1/molecules/batch" | jq -r .job_id)
	while :; do
		api "$url/v1/molecules/batch/$job" >"$d/view.json"
		st=$(jq -r .status "$d/view.json")
		case $st in succeeded) break ;; failed | cancelled)
			echo "$mode: job $job $st" >&2
			exit 1
			;;
		esac
		sleep 0.2
	done
	t1=$(now)
	c1=$(cpu $spid)
	w1=0
	if [ -n "$wpid" ]; then w1=$(cpu $wpid); fi
	n=$(jq -r .processed "$d/view.json")
	jq -c '[.total, .processed, .created, .existing, .failed]' "$d/view.json" >"$WORK/counts-$mode-$r"
	echo "$mode $(secs "$t0" "$t1") $(cpusecs "$c0" "$c1") $(echo "$c0 $c1 $TCK $n" | awk '{printf "%.3f", 1000*($2-$1)/$3/$4}') $(cpusecs "$w0" "$w1") $n $l0 $(load)" >>"$WORK/runs"
	kill $spid $wpid 2>/dev/null || true
	wait $spid 2>/dev/null || true
	if [ -n "$wpid" ]; then wait $wpid 2>/dev/null || true; fi
}

echo "upload $(basename "$UPLOAD") ($(awk 'NF > 0' "$UPLOAD" | wc -l) records), $CHEM chem threads, $ROUNDS round(s), $(nproc) cores"
mkdir -p "$WORK"
: >"$WORK/runs"
r=1
while [ $r -le "$ROUNDS" ]; do
	run local
	run nats
	r=$((r + 1))
done
cleanup
trap - EXIT INT TERM
printf '\n| run | wall s | server CPU s | server CPU ms/record | worker CPU s | records | load before / after |\n|---|---|---|---|---|---|---|\n'
awk '{printf "| %s | %s | %s | %s | %s | %s | %s / %s |\n", $1, $2, $3, $4, $5, $6, $7, $8}' "$WORK/runs"
echo
echo "median wall: local $(med local 2) s, nats $(med nats 2) s; server CPU per record: local $(med local 4) ms, nats coordinator $(med nats 4) ms"
echo "$(med local 2) $(med nats 2)" | awk '{printf "NATS overhead (wall): %+.1f %% (target <= 10 %%)\n", 100*($2-$1)/$1}'
STATUS=0
for f in "$WORK"/counts-*; do
	cmp -s "$f" "$WORK/counts-local-1" || { echo "FAIL: counters of $(basename "$f") differ: $(cat "$f") vs $(cat "$WORK/counts-local-1")" >&2; STATUS=1; }
done
[ $STATUS -eq 0 ] && echo "counters: identical in every run ($(cat "$WORK/counts-local-1"): total, processed, created, existing, failed)"
echo "work directory: $WORK"
exit $STATUS
