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
# Hostile-corpus findings: a shard's rows were trusted. A row for no point of the sweep (index
# 10^15, its summary beside it) reached the ranking, which read its grid coordinates out of
# bounds; a row whose fields had other types ended in a raw JSON library exception. Rows are
# now checked against the sweep and recomputed from their summaries.
cp -r "$OUT/s0" "$OUT/t0"
cp "$OUT/s0/points/0.json" "$OUT/t0/points/1000000000000000.json"
sed 's|"index":0,|"index":1000000000000000,|' "$OUT/s0/points.jsonl" > "$OUT/t0/points.jsonl"
if "$BLIS" sweep-merge "$OUT/t0" "$OUT/s1" "$OUT/s2" --out "$OUT/bad" 2>"$OUT/err"; then exit 1; else test $? -eq 2; fi
grep -q "line 1: point 1000000000000000 is not a point of this sweep (it has 6)" "$OUT/err"
sed 's|"feasible":[a-z]*|"feasible":"yes"|' "$OUT/s0/points.jsonl" > "$OUT/t0/points.jsonl"
rm "$OUT/t0/points/1000000000000000.json"
if "$BLIS" sweep-merge "$OUT/t0" "$OUT/s1" "$OUT/s2" --out "$OUT/bad" 2>"$OUT/err"; then exit 1; else test $? -eq 2; fi
grep -q "line 1: the row of point 0 is not what its summary" "$OUT/err"
test "$(wc -l < "$OUT/err")" -eq 1
# An axis that names nothing in the base is an error (exit 2) with its pointer.
cp "$SRC/tests/sweep/data/base.json" "$OUT/base.json"
sed 's|/pools/0/instances|/pools/3/instances|' "$SWEEP" > "$OUT/bad.json"
if "$BLIS" sweep "$OUT/bad.json" --out "$OUT/bad" --quiet 2>"$OUT/err"; then exit 1; else test $? -eq 2; fi
grep -q "/axes/0/pointer" "$OUT/err"
# The shipped example sweep reads its base beside it, so it needs no --read-anywhere.
"$BLIS" sweep "$SRC/examples/default-grid.sweep.json" --out "$OUT/example" --jobs 2 --quiet
test "$(wc -l < "$OUT/example/points.jsonl")" -eq 12
echo "cli_sweep_test: ok"
