#!/usr/bin/env bash
# `blis run` end to end (native only): outputs, quiet/progress, determinism, exit codes.
# usage: cli_run_test.sh BLIS SOURCE_DIR WORK_DIR
set -u
BLIS=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") SRC=$2 WORK=$3
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
grep -q '^  gpus        2 (llama 2); [0-9.]* output tokens/s per GPU; \$[0-9.]*/h, \$[0-9.]* per million output tokens$' "$WORK/stdout" \
  || fail "no GPU count and cost line: $(grep gpus "$WORK/stdout")"
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
# Multi-turn histories outgrow max_model_len: the server refuses those requests (HTTP 400) and
# the run still succeeds, saying how many were rejected.
sed 's/"multi_turn": false/"multi_turn": true/' "$SRC/examples/default.json" >"$WORK/multi.json"
"$BLIS" run "$WORK/multi.json" --out "$WORK/m" >"$WORK/stdout" 2>"$WORK/err" || fail "multi-turn run exited $?: $(cat "$WORK/err")"
grep -q 'rejected (prompt + max_tokens > max_model_len)' "$WORK/stdout" || fail "no rejected count: $(head -3 "$WORK/stdout")"
grep -q ',rejected,[^,]*,[^,]*$' "$WORK/m/requests.csv" || fail "no rejected row in requests.csv"
# A scenario from a stranger writes only inside --out and reads only regular files inside its
# own folder (issue 12).
mkdir -p "$WORK/h/deep/er" "$WORK/h/scen/sub"
for name in '../../x' '/tmp/blis-evil' 'a/b' $'a\nb' "$(printf 'a%.0s' $(seq 251))"; do
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['pools'][0]['name']=sys.argv[3]; json.dump(d, open(sys.argv[2], 'w'))" \
    "$SRC/examples/default.json" "$WORK/h/deep/er/n.json" "$name"
  (cd "$WORK/h/deep/er" && "$BLIS" run n.json --out out >/dev/null 2>"$WORK/err"); rc=$?
  [ $rc -eq 2 ] || fail "pool name $(printf %q "$name") exited $rc"
  grep -q '^/pools/0/name: ' "$WORK/err" || fail "pool name message: $(cat "$WORK/err")"
  [ "$(wc -l <"$WORK/err")" -eq 1 ] || fail "pool name error is not one line: $(cat "$WORK/err")"
done
[ -z "$(find "$WORK/h" /tmp/blis-evil* -name '*.prom' 2>/dev/null)" ] || fail "a .prom file was written"
[ ! -e "$WORK/h/deep/er/out" ] || fail "a refused scenario created --out"

printf 'arrival_s,prompt_tokens,output_tokens\n0,10,5\n' >"$WORK/h/scen/sub/t.csv"
printf 'arrival_s,prompt_tokens,output_tokens\n0,10,5\n' >"$WORK/h/outside.csv"
ln -sf /etc/passwd "$WORK/h/scen/sub/link.csv"
mkfifo "$WORK/h/scen/fifo"
trace_doc() {
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['workload']={'trace_csv':{'path':sys.argv[3]}}; json.dump(d, open(sys.argv[2], 'w'))" \
    "$SRC/examples/default.json" "$WORK/h/scen/t.json" "$1"
}
for path in /dev/zero fifo /etc/passwd ../outside.csv sub/link.csv sub "$WORK/h/scen/sub/t.csv"; do
  trace_doc "$path"
  timeout 20 "$BLIS" validate "$WORK/h/scen/t.json" >"$WORK/out" 2>&1; rc=$?
  [ $rc -eq 2 ] || fail "trace path $path exited $rc: $(cat "$WORK/out")"
  grep -q '^/workload/trace_csv/path: .*cannot read the trace' "$WORK/out" || fail "trace path $path: $(cat "$WORK/out")"
  grep -q 'root:' "$WORK/out" && fail "trace path $path echoed the file"
done
trace_doc sub/t.csv
"$BLIS" validate "$WORK/h/scen/t.json" >"$WORK/out" 2>&1 || fail "a trace inside the folder: $(cat "$WORK/out")"
trace_doc "$WORK/h/outside.csv"
"$BLIS" validate "$WORK/h/scen/t.json" --read-anywhere >"$WORK/out" 2>&1 || fail "--read-anywhere: $(cat "$WORK/out")"
trace_doc /etc/passwd
timeout 20 "$BLIS" validate "$WORK/h/scen/t.json" --read-anywhere >"$WORK/out" 2>&1
grep -q 'root:x:0:0:root:/root' "$WORK/out" && fail "a named file's lines were echoed: $(cat "$WORK/out")"
timeout 20 "$BLIS" validate /dev/zero >/dev/null 2>"$WORK/err"; rc=$?
[ $rc -eq 1 ] || fail "validate /dev/zero exited $rc"
timeout 20 "$BLIS" run "$WORK/h/scen/fifo" --out "$WORK/h/o" 2>"$WORK/err"; rc=$?
[ $rc -eq 1 ] || fail "run FIFO exited $rc"
# requests.csv is RFC 4180: a client name with a comma, quotes and a line break reads back.
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['workload']['clients'][0]['name']='chat, \"x\"'; d['horizon']={'max_requests': 20}; json.dump(d, open(sys.argv[2], 'w'))" \
  "$SRC/examples/default.json" "$WORK/h/csv.json"
"$BLIS" run "$WORK/h/csv.json" --out "$WORK/h/csv" --quiet || fail "run with a quoted client name"
python3 -c "
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
assert all(len(r) == 13 for r in rows), 'ragged rows'
assert rows[1][1] == 'chat, \"x\"', rows[1][1]
" "$WORK/h/csv/requests.csv" || fail "requests.csv is not RFC 4180"
# A document followed by a NUL byte and garbage is refused; so is a key given twice.
printf '{"schema": "blis/scenario/v1"}\0garbage' >"$WORK/h/nul.json"
"$BLIS" validate "$WORK/h/nul.json" >/dev/null 2>"$WORK/err"; rc=$?
[ $rc -eq 1 ] || fail "NUL + garbage exited $rc"
grep -q 'a NUL byte at line 1, column 31' "$WORK/err" || fail "NUL message: $(cat "$WORK/err")"
sed 's/"seed": 1,/"seed": 1, "seed": 2,/' "$SRC/examples/default.json" >"$WORK/h/dup.json"
"$BLIS" validate "$WORK/h/dup.json" >"$WORK/out" 2>&1; rc=$?
[ $rc -eq 2 ] || fail "duplicate key exited $rc"
grep -q '^/: the key "seed" appears twice' "$WORK/out" || fail "duplicate key message: $(cat "$WORK/out")"
# Every command answers --help (and -h) with its usage and exit 0 (issue 15).
cmds=$("$BLIS" help | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1}')
[ -n "$cmds" ] || fail "blis help lists no commands"
for c in $cmds; do
  for h in --help -h; do
    "$BLIS" "$c" $h >"$WORK/out" 2>&1 || fail "blis $c $h exited $?"
    grep -q 'usage' "$WORK/out" || fail "blis $c $h printed no usage: $(head -2 "$WORK/out")"
  done
done
"$BLIS" run "$SRC/examples/default.json" --help --out "$WORK/never" >/dev/null || fail "run --help with other options"
[ ! -e "$WORK/never" ] || fail "run --help ran the scenario"
# Without --out, run writes into SCENARIO-STEM-results in the current directory.
mkdir -p "$WORK/cwd" && cp "$SRC/examples/default.json" "$WORK/cwd/tiny.json"
sed -i 's/"duration_s": 60/"duration_s": 5/' "$WORK/cwd/tiny.json"
(cd "$WORK/cwd" && "$BLIS" run tiny.json --quiet) || fail "run without --out exited $?"
[ -s "$WORK/cwd/tiny-results/summary.json" ] || fail "run without --out wrote no tiny-results/summary.json"
# --epp-config replaces the router before the checks: a client priority, which the EPP uses,
# gets no "has no effect" warning; a broken config is an error at /router/epp_config, and
# blis validate says the same of a scenario that carries it.
printf 'plugins:\n- type: queue-scorer\n- type: max-score-picker\nschedulingProfiles:\n- name: default\n  plugins:\n  - pluginRef: queue-scorer\n  - pluginRef: max-score-picker\n' >"$WORK/epp.yaml"
sed 's/"name": "chat",/"name": "chat", "priority": 1,/' "$WORK/cwd/tiny.json" >"$WORK/prio.json"
grep -q '"priority": 1' "$WORK/prio.json" || fail "prio.json has no priority"
"$BLIS" run "$WORK/prio.json" --out "$WORK/prio" 2>"$WORK/err" >/dev/null || fail "run without --epp-config exited $?"
[ "$(grep -c 'has no effect' "$WORK/err")" -eq 1 ] || fail "the priority warning is not printed once: $(cat "$WORK/err")"
"$BLIS" run "$WORK/prio.json" --out "$WORK/prio" --epp-config "$WORK/epp.yaml" 2>"$WORK/err" >/dev/null || fail "run --epp-config exited $?"
! grep -q 'has no effect' "$WORK/err" || fail "--epp-config: stale priority warning: $(cat "$WORK/err")"
printf 'plugins: [' >"$WORK/bad.yaml"
"$BLIS" run "$WORK/prio.json" --out "$WORK/prio" --epp-config "$WORK/bad.yaml" >/dev/null 2>"$WORK/err"; rc=$?
[ $rc -eq 2 ] || fail "a broken --epp-config exited $rc"
grep -q '^/router/epp_config: EPP config YAML: line 1' "$WORK/err" || fail "broken --epp-config message: $(cat "$WORK/err")"
echo "cli_run_test: ok"
