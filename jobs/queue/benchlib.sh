# Shell helpers of the scale-out benchmarks (bench.sh, bench-batch.sh),
# sourced once ROOT, BIN and WORK are set: builds BIN if missing, sets KEY
# and TCK, and kills the processes listed in PIDS when the script exits.
KEY=bench-key-0123456789abcdefghijklmnopqrstuvwxyz0123456789
TCK=$(getconf CLK_TCK)
cd "$ROOT"
[ -x "$BIN" ] || go build -o "$BIN" ./cmd/molgraph

now() { date +%s.%N; }
load() { cut -d' ' -f1 /proc/loadavg; }
# CPU jiffies of a process and its reaped children
cpu() { awk '{print $14+$15+$16+$17}' "/proc/$1/stat"; }
# secs T0 T1: the seconds from T0 to T1 (now), one decimal.
secs() { echo "$1 $2" | awk '{printf "%.1f", $2-$1}'; }
# cpusecs C0 C1: the CPU seconds from C0 to C1 (cpu), one decimal.
cpusecs() { echo "$1 $2 $TCK" | awk '{printf "%.1f", ($2-$1)/$3}'; }
api() { curl -sS -f -H "Authorization: Bearer $KEY" "$@"; }
# waitworkers NATSURL CREDS N: returns once N workers are live.
waitworkers() {
	until [ "$("$BIN" workers --nats-url "$1" --nats-creds "$2" 2>/dev/null | jq '.workers | length')" = "$3" ]; do
		sleep 0.5
	done
}
# med NAME COLUMN: the median of COLUMN over the lines of $WORK/runs of
# the run NAME.
med() { awk -v n="$1" -v c="$2" '$1 == n {print $c}' "$WORK/runs" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

PIDS=""
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM
