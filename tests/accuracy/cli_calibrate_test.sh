#!/usr/bin/env bash
# `blis calibrate` end to end on two small runs made from a trainval scenario (native only):
# it fits, writes a loadable coefficients entry with every fitted value inside its range and
# its source extended, reports leave-one-run-out errors, gives the same file twice
# (deterministic), and rejects bad input with exit 2 (1 for unreadable files).
# usage: cli_calibrate_test.sh BLIS SOURCE_DIR WORK_DIR
set -u
BLIS=$1 SRC=$2 WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK"
fail() { echo "FAIL: $*"; exit 1; }

base="$SRC/tests/accuracy/trainval/63-mistral-nemo-12b-tp1-codegen-1-1/scenario.json"
for r in a b; do
  mkdir -p "$WORK/run-$r"
  node -e '
    const fs = require("fs");
    const s = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    const rate = process.argv[3] === "a" ? 2 : 4;
    s.workload.clients[0].load.stages = [{rate, duration_s: 20}];
    s.horizon.duration_s = 20;
    fs.writeFileSync(process.argv[2] + "/scenario.json", JSON.stringify(s));
    const e2e = process.argv[3] === "a" ? 2500 : 2600;
    fs.writeFileSync(process.argv[2] + "/measured.json", JSON.stringify(
        {whole_run: {e2e_mean: e2e, ttft_mean: 33, itl_mean_project: (e2e - 33) / 246}}));
  ' "$base" "$WORK/run-$r" "$r" || fail "cannot build the test runs"
done

fit() {
  "$BLIS" calibrate "$WORK/run-a" "$WORK/run-b" --out "$1" --holdout run --iterations 1 \
    --stage-seconds 10 --fit /memory/hbm_derate,/serving/request_us >"$1.out" 2>"$1.err"
}
fit "$WORK/fit1.json" || fail "calibrate failed: $(cat "$WORK/fit1.json.err")"
fit "$WORK/fit2.json" || fail "second calibrate failed"
cmp -s "$WORK/fit1.json" "$WORK/fit2.json" || fail "two fits differ"
grep -q "E2E (LORO)" "$WORK/fit1.json.out" || fail "no leave-one-run-out columns"
grep -q "median" "$WORK/fit1.json.out" || fail "no median row"
node -e '
  const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const d = j.memory.hbm_derate, r = j.serving.request_us;
  const ok = j.id === "H100-SXM-80GB" && j.kind === "gpu" && d >= 0.6 && d <= 0.95 &&
             r >= 0 && r <= 20000 && /fitted by `blis calibrate` on 2 runs/.test(j.sources["/memory/hbm_derate"]);
  process.exit(ok ? 0 : 1);' "$WORK/fit1.json" || fail "bad entry: $(head -c 600 "$WORK/fit1.json")"

"$BLIS" calibrate --out "$WORK/x.json" >/dev/null 2>&1; [ $? -eq 2 ] || fail "no runs: expected 2"
"$BLIS" calibrate "$WORK/run-a" >/dev/null 2>&1; [ $? -eq 2 ] || fail "no --out: expected 2"
"$BLIS" calibrate "$WORK/run-a" --out "$WORK/x.json" --fit /memory/nope >/dev/null 2>"$WORK/e"
[ $? -eq 2 ] && grep -q "not a fittable coefficient" "$WORK/e" || fail "bad --fit"
"$BLIS" calibrate "$WORK/missing" --out "$WORK/x.json" >/dev/null 2>&1; [ $? -eq 1 ] || fail "missing run: expected 1"
echo '{"whole_run": {}}' >"$WORK/run-a/measured.json"
"$BLIS" calibrate "$WORK/run-a" --out "$WORK/x.json" >/dev/null 2>"$WORK/e"
[ $? -eq 2 ] && grep -q "e2e_mean" "$WORK/e" || fail "bad measured.json"
echo "cli_calibrate_test: ok"
