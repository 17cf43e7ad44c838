#!/bin/sh
# Regenerates the held-out logs of parsers/{nwchem,psi4,xtb}/testdata/heldout
# from the inputs beside them with Debian's nwchem 7.0.2, psi4 1.3.2 and
# xtb 6.5.1, one thread each, in a scratch directory (scratch files are not
# kept). Usage: generate.sh [name ...] (default: every input). Run from the
# repository root. Then run cclib_values.py to refresh cclib.json.
set -u
root=$(pwd)/parsers
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_STACKSIZE=64M
want() { [ $# -eq 0 ] && return 0; for w in $ARGS; do [ "$w" = "$1" ] && return 0; done; return 1; }
ARGS="$*"
for f in "$root"/nwchem/testdata/heldout/*.nw; do
	n=$(basename "$f" .nw)
	[ -n "$ARGS" ] && ! want "$n" && continue
	mkdir -p "$tmp/$n" && cp "$f" "$tmp/$n/" && (cd "$tmp/$n" && timeout 600 nice nwchem "$n.nw" >"$root/nwchem/testdata/heldout/$n.out" 2>"$tmp/$n/stderr")
	echo "nwchem $n: exit $?"
done
for f in "$root"/psi4/testdata/heldout/*.in; do
	n=$(basename "$f" .in)
	[ -n "$ARGS" ] && ! want "$n" && continue
	mkdir -p "$tmp/$n" && cp "$f" "$tmp/$n/" && (cd "$tmp/$n" && timeout 600 nice psi4 -n 1 "$n.in" -o "$root/psi4/testdata/heldout/$n.out" >/dev/null 2>&1)
	echo "psi4 $n: exit $?"
done
# xtb: each NAME.args holds the command-line options for NAME.xyz (or the
# structure file named on its first line after "file=").
for f in "$root"/xtb/testdata/heldout/*.args; do
	n=$(basename "$f" .args)
	[ -n "$ARGS" ] && ! want "$n" && continue
	mkdir -p "$tmp/$n" && cp "$root"/xtb/testdata/heldout/"$n".* "$tmp/$n/"
	in=$n.xyz
	for s in "$n.sdf" "$n.coord" "$n.mol"; do [ -f "$tmp/$n/$s" ] && in=$s; done
	# shellcheck disable=SC2046
	(cd "$tmp/$n" && timeout 600 nice xtb "$in" $(cat "$n.args") >"$root/xtb/testdata/heldout/$n.out" 2>/dev/null)
	echo "xtb $n: exit $?"
	[ -f "$tmp/$n/g98.out" ] && cp "$tmp/$n/g98.out" "$root/xtb/testdata/heldout/$n.g98.out"
done
