#!/bin/sh
# Scale-out docking benchmark (make bench-scale; design M1, M2): one docking
# job of the ligands in LIGANDS against 1iep, run side by side on
#   local  - serve --queue local --vina-workers 2 (today's default),
#   nats2  - serve --queue nats (embedded NATS server, --local-slots 0) and
#            two `molgraph worker --kinds dock --slots 1` processes,
#   nats1  - the same with one worker process,
# ROUNDS times in the order local, nats2, nats1 (so that a change of the
# machine's load touches all three), each timed from POST to "succeeded".
# Printed: per run the wall time, the CPU seconds of the server and of the
# workers (with their vina children) and the load average; then the medians,
# the NATS overhead (nats2 against local: same parallelism, 2 vina at a
# time) and the speed-up of 2 worker processes over 1. Exits non-zero if
# any affinity differs between the runs (fixed seed).
#
# Environment: EXH (default 8), SEED (42), ROUNDS (1), LIGANDS (default the
# corpus's throughput6.smi), RECEPTOR, BOX, WORK (default a new temporary
# directory), PORT (default 18190; uses PORT..PORT+2), BIN (default
# bin/molgraph, built if missing). On 2 idle cores one round at EXH=8 takes
# about 3 x the 6 ligands' vina time (~10-15 min); EXH=1 about 1 min.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CORPUS=${CORPUS:-$ROOT/../shared/docking-corpus}
LIGANDS=${LIGANDS:-$CORPUS/ligands/throughput6.smi}
RECEPTOR=${RECEPTOR:-$CORPUS/vina-examples/1iep/1iep_receptor.pdbqt}
BOX=${BOX:-$CORPUS/vina-examples/1iep/1iep_receptor.box.txt}
EXH=${EXH:-8}
SEED=${SEED:-42}
ROUNDS=${ROUNDS:-1}
PORT=${PORT:-18190}
WORK=${WORK:-$(mktemp -d /tmp/molgraph-bench-scale.XXXXXX)}
BIN=${BIN:-$ROOT/bin/molgraph}
. "$ROOT/jobs/queue/benchlib.sh"
boxval() { awk -F= -v k="$1" '{gsub(/[ \t\r]/, "")} $1 == k {print $2}' "$BOX"; }

rm -rf "$WORK/local" "$WORK/nats" "$WORK/w1" "$WORK/w2"
mkdir -p "$WORK"
ULOCAL=http://127.0.0.1:$PORT
UNATS=http://127.0.0.1:$((PORT + 1))
NATSURL=nats://127.0.0.1:$((PORT + 2))
MOLGRAPH_API_KEY=$KEY "$BIN" serve --addr "127.0.0.1:$PORT" --data-dir "$WORK/local" --vina-workers 2 \
	--log-format text 2>"$WORK/local.log" >/dev/null &
SLOCAL=$!
MOLGRAPH_API_KEY=$KEY "$BIN" serve --addr "127.0.0.1:$((PORT + 1))" --data-dir "$WORK/nats" --queue nats \
	--nats-listen "127.0.0.1:$((PORT + 2))" --local-slots 0 --log-format text 2>"$WORK/nats.log" >/dev/null &
SNATS=$!
PIDS="$SLOCAL $SNATS"
for u in $ULOCAL $UNATS; do
	until curl -sf "$u/readyz" >/dev/null; do
		kill -0 $SLOCAL 2>/dev/null && kill -0 $SNATS 2>/dev/null || { cat "$WORK/local.log" "$WORK/nats.log"; exit 1; }
		sleep 0.2
	done
done

# The same receptor and ligands (3D conformers) on both servers.
CX=$(boxval center_x) CY=$(boxval center_y) CZ=$(boxval center_z)
SX=$(boxval size_x) SY=$(boxval size_y) SZ=$(boxval size_z)
for u in $ULOCAL $UNATS; do
	rec=$(api -F "file=@$RECEPTOR" -F name=bench "$u/v1/receptors" | jq -r .id)
	ids=""
	while read -r smi name; do
		[ -n "$smi" ] || continue
		id=$(jq -n --arg s "$smi" --arg n "$name" '{format: "smiles", content: $s, name: $n, generate_3d: true}' |
			api -H 'Content-Type: application/json' --data-binary @- "$u/v1/molecules" | jq -r .id)
		ids="$ids $id"
	done <"$LIGANDS"
	jq -n --arg r "$rec" --argjson c "[$CX,$CY,$CZ]" --argjson s "[$SX,$SY,$SZ]" --argjson e "$EXH" \
		--argjson seed "$SEED" --arg ids "$ids" \
		'{receptor: $r, ligands: ($ids | split(" ") | map(select(length > 0))), pocket: "box",
		  box: {center: $c, size: $s}, exhaustiveness: $e, num_modes: 9, energy_range: 3, seed: $seed}' \
		>"$WORK/body-$(echo "$u" | tr -dc 0-9)"
done
N=$(awk 'NF > 0' "$LIGANDS" | wc -l)

# startworkers N: N worker processes of one slot on the nats server.
WPIDS=""
startworkers() {
	WPIDS=""
	i=1
	while [ $i -le "$1" ]; do
		mkdir -p "$WORK/w$i"
		"$BIN" worker --nats-url "$NATSURL" --nats-creds "$WORK/nats/nats/worker.nk" --kinds dock --slots 1 \
			--name "bench-w$i" --work-dir "$WORK/w$i" --log-format text 2>"$WORK/w$i.log" >/dev/null &
		WPIDS="$WPIDS $!"
		PIDS="$PIDS $!"
		i=$((i + 1))
	done
	waitworkers "$NATSURL" "$WORK/nats/nats/worker.nk" "$1"
}
stopworkers() {
	for p in $WPIDS; do kill "$p" 2>/dev/null || true; done
	for p in $WPIDS; do wait "$p" 2>/dev/null || true; done
}

# run NAME URL SERVERPID: one job; prints "NAME wall server_cpu workers_cpu load0 load1".
run() {
	body="$WORK/body-$(echo "$2" | tr -dc 0-9)"
	l0=$(load)
	c0=$(cpu "$3")
	w0=0
	for p in $WPIDS; do w0=$((w0 + $(cpu "$p"))); done
	t0=$(now)
	job=$(api -H 'Content-Type: application/json' --data-binary @"$body" "$2/v1/docking/jobs" | jq -r .id)
	while :; do
		st=$(api "$2/v1/docking/jobs/$job" | jq -r .status)
		case $st in succeeded) break ;; failed | cancelled)
			echo "$1: job $job $st" >&2
			exit 1
			;;
		esac
		sleep 0.2
	done
	t1=$(now)
	c1=$(cpu "$3")
	w1=0
	for p in $WPIDS; do w1=$((w1 + $(cpu "$p"))); done
	api "$2/v1/docking/jobs/$job/results?limit=1000" |
		jq -r '.results[] | .ligand + " " + ([.modes[].affinity_kcal | tostring] | join(" "))' | sort >"$WORK/aff-$1-$r"
	echo "$1 $(secs "$t0" "$t1") $(cpusecs "$c0" "$c1") $(cpusecs "$w0" "$w1") $l0 $(load)" >>"$WORK/runs"
}

echo "$N ligands ($(basename "$LIGANDS")), 1iep, exhaustiveness $EXH, seed $SEED, $ROUNDS round(s), $(nproc) cores"
: >"$WORK/runs"
r=1
while [ $r -le "$ROUNDS" ]; do
	run local $ULOCAL $SLOCAL
	startworkers 2
	run nats2 $UNATS $SNATS
	stopworkers
	startworkers 1
	run nats1 $UNATS $SNATS
	stopworkers
	r=$((r + 1))
done
cleanup
trap - EXIT INT TERM

printf '\n| run | wall s | server CPU s | workers CPU s (incl. vina) | load before / after |\n|---|---|---|---|---|\n'
awk '{printf "| %s | %s | %s | %s | %s / %s |\n", $1, $2, $3, $4, $5, $6}' "$WORK/runs"
ML=$(med local 2) M2=$(med nats2 2) M1=$(med nats1 2)
echo
echo "median wall: local $ML s, nats 2 workers $M2 s, nats 1 worker $M1 s"
echo "$ML $M2" | awk '{printf "NATS overhead (nats2 vs local, 2 vina at a time each): %+.1f %% (target <= 5 %%)\n", 100*($2-$1)/$1}'
echo "$M1 $M2" | awk '{printf "speed-up of 2 worker processes over 1: %.2fx (target >= 1.8x)\n", $1/$2}'
STATUS=0
for f in "$WORK"/aff-*; do
	if ! cmp -s "$f" "$WORK/aff-local-1"; then
		echo "FAIL: affinities of $(basename "$f") differ from aff-local-1" >&2
		STATUS=1
	fi
done
[ $STATUS -eq 0 ] && echo "affinities: identical in every run, every ligand and mode"
echo "work directory: $WORK"
exit $STATUS
