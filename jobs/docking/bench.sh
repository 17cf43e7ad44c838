#!/bin/sh
# Docking benchmark (make bench-docking): one docking job of the ligands in
# LIGANDS (default docking-corpus/ligands/throughput6.smi: 6 kinase
# inhibitors and ibuprofen) against the 1iep receptor and its documented box
# (docking-corpus README, section 6), through a fresh molgraph server, timed
# from POST to "succeeded"; then the same dockings through raw vina: every
# form the job docks (a ligand with unspecified stereo is docked as each of
# its stereoisomers, each protonated at the job's ligand_ph) as the PDBQT
# file the server feeds vina (GET /v1/molecules/{id}/structure?format=pdbqt
# &ph=PH&isomer=N, N = 1..X-Stereoisomers; so both runs dock the same bytes),
# the receptor PDBQT fetched from the server, the same box, exhaustiveness
# and seed, and the server's parallelism (NPROC vina processes at a time,
# --cpu 1 each, in the job's ligand order, one process per form). Printed
# side by side: wall time, service overhead (% of the service's wall time),
# CPU seconds (the server with its vina children and its live 3D embedding
# helpers) and cores busy (CPU s / wall s) of each, and every mode's
# affinity per ligand (raw vina: the modes of the form with the best first
# mode, the first of equals, as the service reports) and each form's best
# affinity. Exits non-zero if any affinity differs. Wall times are noisy on
# a shared machine: the load average is printed before and after each run.
#
# ROUNDS (default 2) rounds of one service job and one raw vina run, in
# ABBA order (service, raw, raw, service, ...; one server, a new job per
# round): the host's speed drifts over minutes, and the order spreads the
# drift over both sides. Printed per round and summed; the overhead is
# 1 - (raw wall summed) / (service wall summed).
#
# Environment: EXH (exhaustiveness, default 8), SEED (default 42), PH (the
# job's ligand_ph, default 7.4), ROUNDS, LIGANDS
# (SMILES file: "SMILES name" lines), RECEPTOR (PDBQT), BOX (vina config
# file with center_x.. size_z), WORK (directory kept for inspection; default
# a fresh temporary one), PORT (default 18182), BIN (molgraph binary;
# default bin/molgraph, built if missing).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CORPUS=${CORPUS:-$ROOT/../shared/docking-corpus}
LIGANDS=${LIGANDS:-$CORPUS/ligands/throughput6.smi}
RECEPTOR=${RECEPTOR:-$CORPUS/vina-examples/1iep/1iep_receptor.pdbqt}
BOX=${BOX:-$CORPUS/vina-examples/1iep/1iep_receptor.box.txt}
EXH=${EXH:-8}
PH=${PH:-7.4}
SEED=${SEED:-42}
PORT=${PORT:-18182}
WORK=${WORK:-$(mktemp -d /tmp/molgraph-bench-docking.XXXXXX)}
BIN=${BIN:-$ROOT/bin/molgraph}
KEY=bench-key-0123456789abcdefghijklmnopqrstuvwxyz0123456789
URL=http://127.0.0.1:$PORT
NPROC=$(nproc)
TCK=$(getconf CLK_TCK)
cd "$ROOT"
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/molgraph

now() { date +%s.%N; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# busy and total jiffies of the whole host (/proc/stat "cpu" line)
hostcpu() { awk '/^cpu / {t=0; for (i=2; i<=NF; i++) t+=$i; print t-$5-$6, t}' /proc/stat; }
api() { curl -sS -f -H "Authorization: Bearer $KEY" "$@"; }
boxval() { awk -F= -v k="$1" '{gsub(/[ \t\r]/, "")} $1 == k {print $2}' "$BOX"; }

rm -rf "$WORK/data" "$WORK/raw" "$WORK"/service.* "$WORK"/raw.* "$WORK"/metrics.* "$WORK"/results.*
mkdir -p "$WORK/raw"
MOLGRAPH_API_KEY=$KEY "$BIN" serve --addr "127.0.0.1:$PORT" --data-dir "$WORK/data" \
	--log-format text 2>"$WORK/server.log" >/dev/null &
PID=$!
trap 'kill $PID 2>/dev/null || true' EXIT
until curl -sf "$URL/readyz" >/dev/null; do
	kill -0 $PID 2>/dev/null || { cat "$WORK/server.log"; exit 1; }
	sleep 0.2
done

# Inputs: the receptor (PDBQT as uploaded) and the ligands with a stored
# 3D conformer; every form the job docks is fetched below (?isomer=N: the
# job's stereoisomer N, ?ph: in its protonation state at the job's pH).
REC=$(api -F "file=@$RECEPTOR" -F name=bench "$URL/v1/receptors" | jq -r .id)
: >"$WORK/ids"
while read -r smi name; do
	[ -n "$smi" ] || continue
	id=$(jq -n --arg s "$smi" --arg n "$name" '{format: "smiles", content: $s, name: $n, generate_3d: true}' |
		api -H 'Content-Type: application/json' --data-binary @- "$URL/v1/molecules" | jq -r .id)
	echo "$id $name" >>"$WORK/ids"
done <"$LIGANDS"
# The job docks its ligands in molecule-id order; raw vina does the same.
sort -o "$WORK/ids" "$WORK/ids"
api "$URL/v1/receptors/$REC/structure?format=pdbqt" >"$WORK/raw/receptor.pdbqt"
# forms: "id N" per form the job docks (an isomer the server cannot
# prepare, 422, is not docked by the job either).
: >"$WORK/forms"
while read -r id name; do
	n=1 k=1
	while [ "$k" -le "$n" ]; do
		code=$(curl -sS -H "Authorization: Bearer $KEY" -D "$WORK/headers" -o "$WORK/raw/${id}_$k.pdbqt" -w '%{http_code}' \
			"$URL/v1/molecules/$id/structure?format=pdbqt&ph=$PH&isomer=$k")
		[ "$k" -gt 1 ] || n=$(awk -F': *' 'tolower($1) == "x-stereoisomers" {print $2 + 0}' "$WORK/headers")
		case $code in
		200) echo "$id $k" >>"$WORK/forms" ;;
		422) echo "note: $name isomer $k cannot be prepared (not docked by the job either): $(cat "$WORK/raw/${id}_$k.pdbqt")" ;;
		*)
			echo "structure of $id isomer $k: HTTP $code: $(cat "$WORK/raw/${id}_$k.pdbqt")" >&2
			exit 1
			;;
		esac
		[ -n "$n" ] && [ "$n" -ge 1 ] || n=1
		k=$((k + 1))
	done
done <"$WORK/ids"
CX=$(boxval center_x) CY=$(boxval center_y) CZ=$(boxval center_z)
SX=$(boxval size_x) SY=$(boxval size_y) SZ=$(boxval size_z)
N=$(wc -l <"$WORK/ids")
NF=$(wc -l <"$WORK/forms")
echo "receptor $REC ($(basename "$RECEPTOR")), box center $CX $CY $CZ size $SX $SY $SZ, $N ligands ($NF forms docked: stereoisomers at ligand_ph $PH), exhaustiveness $EXH, seed $SEED, $NPROC cores"

# The job every service round submits.
BODY=$(jq -n --arg r "$REC" --argjson c "[$CX,$CY,$CZ]" --argjson s "[$SX,$SY,$SZ]" \
	--argjson e "$EXH" --argjson seed "$SEED" --argjson ph "$PH" --rawfile ids "$WORK/ids" \
	'{receptor: $r, ligands: [$ids | split("\n")[] | select(length > 0) | split(" ")[0]],
	  pocket: "box", box: {center: $c, size: $s}, exhaustiveness: $e, num_modes: 9, energy_range: 3, seed: $seed, ligand_ph: $ph}')
# CPU ticks of the server: its own and its waited-for children's (vina),
# plus those of its live children (the 3D embedding helpers, which are
# waited for only when they exit).
srvcpu() {
	{
		cat /proc/$PID/stat
		for c in $(cat /proc/$PID/task/*/children 2>/dev/null); do cat /proc/$c/stat 2>/dev/null || true; done
	} | sed 's/^.*) //' | awk '{t += $12+$13+$14+$15} END {print t}'
}
secs() { echo "$1 $2" | awk '{printf "%.1f", $2-$1}'; }
busy() { echo "$1 $2 $3 $4" | awk '{printf "%.0f", 100*($3-$1)/($4-$2)}'; }

# One service round (r): a new job of the same ligands on the same server,
# POST -> succeeded; the server's CPU with its vina children, its /metrics
# before and after (the stage counters are cumulative).
service_round() {
	r=$1
	api "$URL/metrics" >"$WORK/metrics.$r.0"
	L0=$(load)
	C0=$(srvcpu)
	set -- $(hostcpu)
	H0B=$1 H0T=$2
	T0=$(now)
	JOB=$(printf '%s' "$BODY" | api -H 'Content-Type: application/json' --data-binary @- "$URL/v1/docking/jobs" | jq -r .id)
	# The end is the server log's "job finished" line, looked for once a
	# second, and the time is the job's finished_at: polling the API five
	# times a second with curl and jq took ~20 ms of CPU a poll, ~5 % of
	# the two cores, charged to the service's side alone (its vina runs
	# took 4-14 % more CPU than raw vina's while it polled).
	until grep -q "msg=\"job finished\" job=[^ ]*/$JOB " "$WORK/server.log"; do
		kill -0 $PID 2>/dev/null || { cat "$WORK/server.log"; exit 1; }
		sleep 1
	done
	J=$(api "$URL/v1/docking/jobs/$JOB")
	ST=$(printf '%s' "$J" | jq -r .status)
	if [ "$ST" != succeeded ]; then
		echo "job $JOB $ST" >&2
		exit 1
	fi
	T1=$(date -d "$(printf '%s' "$J" | jq -r .finished_at)" +%s.%N)
	C1=$(srvcpu)
	set -- $(hostcpu)
	L1=$(load)
	echo "$(secs "$T0" "$T1") $(echo "$C0 $C1 $TCK" | awk '{printf "%.1f", ($2-$1)/$3}') $(busy "$H0B" "$H0T" "$1" "$2") $JOB $L0 $L1" >"$WORK/service.$r"
	api "$URL/v1/docking/jobs/$JOB/results?limit=1000" >"$WORK/results.$r.json"
	api "$URL/metrics" >"$WORK/metrics.$r.1"
}

# One raw vina round (r): the same files and settings, NPROC processes at
# a time, outputs in raw/r<r>.
raw_round() {
	r=$1
	mkdir -p "$WORK/raw/r$r"
	L2=$(load)
	set -- $(hostcpu)
	H2B=$1 H2T=$2
	T2=$(now)
	(cd "$WORK/raw" && tr ' ' _ <"$WORK/forms" | /usr/bin/time -f '%U %S' -o "$WORK/raw.time.$r" \
		xargs -P "$NPROC" -I{} vina --receptor receptor.pdbqt --ligand {}.pdbqt --out "r$r/{}_out.pdbqt" \
		--center_x "$CX" --center_y "$CY" --center_z "$CZ" --size_x "$SX" --size_y "$SY" --size_z "$SZ" \
		--exhaustiveness "$EXH" --num_modes 9 --energy_range 3 --seed "$SEED" --cpu 1 >"$WORK/raw/vina.$r.log")
	T3=$(now)
	set -- $(hostcpu)
	L3=$(load)
	echo "$(secs "$T2" "$T3") $(awk '{printf "%.1f", $1+$2}' "$WORK/raw.time.$r") $(busy "$H2B" "$H2T" "$1" "$2") - $L2 $L3" >"$WORK/raw.$r"
}

# Rounds in ABBA order (service, raw, raw, service, service, raw, ...):
# the host's speed drifts over minutes (seen: the same vina runs 20 %
# slower from one hour to the next on a shared 2-core machine), and the
# order spreads the drift over both sides; the overhead is taken from the
# summed wall times of all rounds.
ROUNDS=${ROUNDS:-2}
r=1
while [ "$r" -le "$ROUNDS" ]; do
	if [ $((r % 2)) -eq 1 ]; then
		service_round "$r"
		raw_round "$r"
	else
		raw_round "$r"
		service_round "$r"
	fi
	r=$((r + 1))
done
kill $PID
wait $PID 2>/dev/null || true
trap - EXIT

# Side by side: every round's service results against its raw vina run.
STATUS=0
modes() { awk '/^REMARK VINA RESULT:/ {printf "%s%.3f", (n++ ? " " : ""), $4}' "$1" 2>/dev/null || true; }
r=1
while [ "$r" -le "$ROUNDS" ]; do
	printf '\nround %s:\n| ligand | molecule | service kcal/mol (modes) | raw vina kcal/mol (modes of the best form) | forms: service / raw vina best kcal/mol | equal |\n|---|---|---|---|---|---|\n' "$r"
	while read -r id name; do
		s=$(jq -r --arg id "$id" '.results[] | select(.ligand == $id) | .modes[].affinity_kcal' "$WORK/results.$r.json" |
			awk '{printf "%s%.3f", (NR > 1 ? " " : ""), $1}')
		si=$(jq -r --arg id "$id" '.results[] | select(.ligand == $id) | .isomers[]? | .affinity_kcal // "failed"' "$WORK/results.$r.json" |
			awk '{printf "%s%s", (NR > 1 ? " " : ""), ($1 == "failed" ? $1 : sprintf("%.3f", $1))}')
		rv="" ri="" best=""
		for k in $(awk -v id="$id" '$1 == id {print $2}' "$WORK/forms"); do
			m=$(modes "$WORK/raw/r$r/${id}_${k}_out.pdbqt")
			a=${m%% *}
			ri="$ri${ri:+ }${a:-failed}"
			if [ -n "$a" ] && { [ -z "$best" ] || awk -v a="$a" -v b="$best" 'BEGIN {exit !(a < b)}'; }; then
				best=$a rv=$m
			fi
		done
		eq=yes
		if [ -z "$s" ] || [ "$s" != "$rv" ] || [ "$si" != "$ri" ]; then
			eq=NO
			STATUS=1
		fi
		printf '| %s | %s | %s | %s | %s / %s | %s |\n' "$name" "$id" "$s" "$rv" "$si" "$ri" "$eq"
	done <"$WORK/ids"
	r=$((r + 1))
done

# Wall and CPU per round and summed. Files service.r / raw.r: wall s,
# CPU s, host busy %, job, load before (3), load after (3).
printf '\n| round (order) | service wall s | raw vina wall s | overhead | service CPU s (incl. vina) | raw vina CPU s | cores busy service / raw | host busy %% service / raw | load before service / raw |\n|---|---|---|---|---|---|---|---|---|\n'
r=1
while [ "$r" -le "$ROUNDS" ]; do
	if [ $((r % 2)) -eq 1 ]; then o="service, raw"; else o="raw, service"; fi
	paste -d' ' "$WORK/service.$r" "$WORK/raw.$r" | awk -v r="$r" -v o="$o" '{
		printf "| %s (%s) | %.1f | %.1f | %.1f %% | %.1f | %.1f | %.2f / %.2f | %s / %s | %s / %s |\n",
			r, o, $1, $11, 100*($1-$11)/$1, $2, $12, $2/$1, $12/$11, $3, $13, $5" "$6" "$7, $15" "$16" "$17}'
	r=$((r + 1))
done
cat "$WORK"/service.[0-9]* | awk '{w += $1; c += $2} END {print w, c}' >"$WORK/service.sum"
cat "$WORK"/raw.[0-9]* | awk '{w += $1; c += $2} END {print w, c}' >"$WORK/raw.sum"
read -r SWALL SCPU <"$WORK/service.sum"
read -r RWALL RCPU <"$WORK/raw.sum"
# Where the service's time went (its /metrics deltas, sums over rounds
# and ligands).
metric() {
	cat "$WORK"/metrics.[0-9]*.1 | awk -v m="molgraph_docking_$1" '$1 == m {t += $2} END {printf "%.3f ", t}'
	cat "$WORK"/metrics.[0-9]*.0 | awk -v m="molgraph_docking_$1" '$1 == m {t += $2} END {printf "%.3f\n", t}'
}
delta() { metric "$1" | awk '{printf "%.1f", $1-$2}'; }
VCPU=$(delta vina_cpu_seconds_total)
printf '\nall %s rounds: service %.1f s wall, %.1f CPU s; raw vina %.1f s wall, %.1f CPU s\n' "$ROUNDS" "$SWALL" "$SCPU" "$RWALL" "$RCPU"
printf 'service stages (sums over rounds and ligands, s): prep (in the vina slot, before vina) %s wall; vina %s wall, %s CPU (%s runs; raw vina %s CPU);\n' \
	"$(delta prep_seconds_total)" "$(delta vina_seconds_total)" "$VCPU" "$(delta vina_runs_total | cut -d. -f1)" "$RCPU"
printf '  post-processing (reassembly, interactions, checks; beside the next vina) %s wall, of which pose checks %s CPU; commits %s wall\n' \
	"$(delta post_seconds_total)" "$(delta check_cpu_seconds_total)" "$(delta group_commit_seconds_total)"
echo "$SCPU $VCPU $RCPU" | awk '{printf "service CPU beyond its vina runs: %.1f s (%.1f %% of its vina CPU); service vina CPU vs raw vina CPU: %+.1f %%\n", $1-$2, 100*($1-$2)/$2, 100*($2-$3)/$3}'
echo "$SWALL $RWALL $ROUNDS" | awk '{printf "\nservice overhead: %.1f s over %d rounds = %.1f %% of the service wall time (target <= 5 %%)\n", $1-$2, $3, 100*($1-$2)/$1}'
if [ $STATUS -ne 0 ]; then
	echo "FAIL: affinities differ between the service and raw vina" >&2
else
	echo "affinities: identical for all $N ligands ($NF forms) and every mode, in every round"
fi
echo "work directory: $WORK"
exit $STATUS
