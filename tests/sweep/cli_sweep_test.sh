#!/bin/sh
# blis sweep end to end: --jobs 1 and --jobs 2 write identical files, and three shards joined by
# blis sweep-merge are byte-identical to the unsharded run.
set -eu
BLIS="$1"; SRC="$2"; OUT="$3"
rm -rf "$OUT"; mkdir -p "$OUT"
SWEEP="$SRC/tests/sweep/data/small.json"
"$BLIS" sweep "$SWEEP" --out "$OUT/j1" --jobs 1 --quiet
"$BLIS" sweep "$SWEEP" --out "$OUT/j2" --jobs 2 --quiet
diff -r "$OUT/j1" "$OUT/j2"
for i in 0 1 2; do "$BLIS" sweep "$SWEEP" --out "$OUT/s$i" --shard "$i/3" --quiet; done
"$BLIS" sweep-merge "$OUT/s2" "$OUT/s0" "$OUT/s1" --out "$OUT/merged"
diff -r "$OUT/j1" "$OUT/merged"
test "$(wc -l < "$OUT/j1/points.jsonl")" -eq 6
# A missing shard is refused.
if "$BLIS" sweep-merge "$OUT/s0" "$OUT/s1" --out "$OUT/bad" 2>"$OUT/err"; then exit 1; fi
grep -q "points are in no shard" "$OUT/err"
# An axis that names nothing in the base is an error (exit 2) with its pointer.
cp "$SRC/tests/sweep/data/base.json" "$OUT/base.json"
sed 's|/pools/0/instances|/pools/3/instances|' "$SWEEP" > "$OUT/bad.json"
if "$BLIS" sweep "$OUT/bad.json" --out "$OUT/bad" --quiet 2>"$OUT/err"; then exit 1; else test $? -eq 2; fi
grep -q "/axes/0/pointer" "$OUT/err"
echo "cli_sweep_test: ok"
