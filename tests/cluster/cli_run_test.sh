#!/usr/bin/env bash
# `blis run` end to end (native only): outputs, quiet/progress, determinism, exit codes.
# usage: cli_run_test.sh BLIS SOURCE_DIR WORK_DIR
set -u
BLIS=$1 SRC=$2 WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK"
fail() { echo "FAIL: $*"; exit 1; }

# A quiet run prints nothing and writes every output.
out=$("$BLIS" run "$SRC/examples/default.json" --out "$WORK/a" --quiet 2>&1) || fail "quiet run exited $?"
[ -z "$out" ] || fail "--quiet printed: $out"
for f in summary.json timeseries.json requests.csv metrics/llama-0.prom metrics/llama-1.prom; do
  [ -s "$WORK/a/$f" ] || fail "missing $f"
done
grep -q '"digest": "[0-9a-f]\{16\}"' "$WORK/a/summary.json" || fail "no digest in summary.json"
head -1 "$WORK/a/requests.csv" | grep -q '^id,client,instance,arrival_s,first_token_s,finish_s' || fail "requests.csv header"
grep -q '^vllm:num_requests_running{.*model_name="meta-llama/Llama-3.1-8B-Instruct"' "$WORK/a/metrics/llama-0.prom" \
  || fail "metrics text"

# A second run: same digest, a human summary on stdout, progress on stderr when asked.
"$BLIS" run "$SRC/examples/default.json" --out "$WORK/b" --progress >"$WORK/stdout" 2>"$WORK/stderr" || fail "second run"
d1=$(grep -o '"digest": "[0-9a-f]*"' "$WORK/a/summary.json")
d2=$(grep -o '"digest": "[0-9a-f]*"' "$WORK/b/summary.json")
[ "$d1" = "$d2" ] || fail "digests differ: $d1 vs $d2"
grep -q 'requests finished' "$WORK/stderr" || fail "no progress on stderr"
grep -q '^  ttft_ms ' "$WORK/stdout" || fail "no summary on stdout"
cmp -s "$WORK/a/requests.csv" "$WORK/b/requests.csv" || fail "requests.csv differs between runs"

# Exit codes: 1 for a missing file or text that is not JSON, 2 for an invalid scenario.
"$BLIS" run "$WORK/none.json" --out "$WORK/c" 2>"$WORK/err"; rc=$?
[ $rc -eq 1 ] || fail "missing file exited $rc"
printf '{"schema": "blis/scenario/v1",\n' >"$WORK/bad.json"
"$BLIS" run "$WORK/bad.json" --out "$WORK/c" 2>"$WORK/err"; rc=$?
[ $rc -eq 1 ] || fail "malformed JSON exited $rc"
grep -q 'line 2, column' "$WORK/err" || fail "malformed JSON message: $(cat "$WORK/err")"
sed 's/"seed": 1,/"seed": 1, "bogus": true,/' "$SRC/examples/default.json" >"$WORK/invalid.json"
"$BLIS" run "$WORK/invalid.json" --out "$WORK/c" 2>"$WORK/err"; rc=$?
[ $rc -eq 2 ] || fail "invalid scenario exited $rc"
grep -q '^/bogus: ' "$WORK/err" || fail "invalid scenario message: $(cat "$WORK/err")"
"$BLIS" run "$SRC/examples/default.json" 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "missing --out exited $rc"
# Multi-turn histories outgrow max_model_len: the server refuses those requests (HTTP 400) and
# the run still succeeds, saying how many were rejected.
sed 's/"multi_turn": false/"multi_turn": true/' "$SRC/examples/default.json" >"$WORK/multi.json"
"$BLIS" run "$WORK/multi.json" --out "$WORK/m" >"$WORK/stdout" 2>"$WORK/err" || fail "multi-turn run exited $?: $(cat "$WORK/err")"
grep -q 'rejected (prompt + max_tokens > max_model_len)' "$WORK/stdout" || fail "no rejected count: $(head -3 "$WORK/stdout")"
grep -q ',rejected,[^,]*,[^,]*$' "$WORK/m/requests.csv" || fail "no rejected row in requests.csv"
echo "cli_run_test: ok"
