#!/usr/bin/env bash
# `blis catalog import` end to end (native only): a real config.json becomes an entry that
# `blis price --model-file` prices, marked as an estimate; a config it cannot read exits 2
# naming the pointer.
# usage: cli_import_test.sh BLIS FIXTURES WORK_DIR EXAMPLE_SCENARIO
set -u
BLIS=$1 FIX=$2 WORK=$3 EXAMPLE=$4
rm -rf "$WORK" && mkdir -p "$WORK"
fail() { echo "FAIL: $*"; exit 1; }

"$BLIS" catalog import "$FIX/Mixtral-8x7B-v0.1.json" --id acme/Mixtral-copy --out "$WORK/m.json" \
  2>"$WORK/import.err" || fail "import: $(cat "$WORK/import.err")"
grep -q '"id": "acme/Mixtral-copy"' "$WORK/m.json" || fail "no id in $(head -c 300 "$WORK/m.json")"
"$BLIS" catalog import "$FIX/handwritten-hybrid-chunked.json" >"$WORK/h.json" 2>"$WORK/h.err" \
  || fail "import to stdout: $(cat "$WORK/h.err")"
grep -q '"chunked"' "$WORK/h.json" || fail "hybrid pattern missing"

"$BLIS" price --hardware H100-SXM-80GB --model-file "$WORK/m.json" --tp 2 --json \
  >"$WORK/price.json" 2>"$WORK/price.err" || fail "price --model-file: $(cat "$WORK/price.err")"
node -e '
  const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const ok = j.model === "acme/Mixtral-copy" && j.fits && j.kv_blocks > 0 && j.estimate === true &&
             /no calibration run covers/.test(j.estimate_reason) && j.steps.length > 0;
  process.exit(ok ? 0 : 1);' "$WORK/price.json" || fail "price JSON: $(head -c 600 "$WORK/price.json")"
"$BLIS" price --hardware H100-SXM-80GB --model-file "$WORK/m.json" --tp 2 >"$WORK/price.txt" 2>&1 \
  || fail "price text"
grep -q '^Estimate: no calibration run covers acme/Mixtral-copy' "$WORK/price.txt" || fail "no estimate line"
"$BLIS" price --hardware H100-SXM-80GB --model mistralai/Mixtral-8x7B-v0.1 --tp 2 --json \
  >"$WORK/cal.json" || fail "price built-in"
grep -q '"estimate": false' "$WORK/cal.json" || fail "a calibrated model priced as an estimate"

"$BLIS" catalog import "$FIX/handwritten-unreadable.json" >"$WORK/bad.json" 2>"$WORK/bad.err"
[ $? -eq 2 ] || fail "unreadable config should exit 2"
grep -q '/quantization_config/quant_method' "$WORK/bad.err" || fail "no pointer: $(cat "$WORK/bad.err")"
grep -q '/num_hidden_layers' "$WORK/bad.err" || fail "no layer pointer: $(cat "$WORK/bad.err")"
# Hostile-corpus findings: the config is read as every file a command line names (a regular
# file below the cap: /dev/zero was read until memory ran out, a FIFO blocked), parsed as a
# scenario (a duplicate key was last-wins), and the id it reports is escaped (an ANSI escape or
# a newline in _name_or_path or --id reached the terminal raw).
"$BLIS" catalog import /dev/zero >"$WORK/zero.out" 2>"$WORK/zero.err"
[ $? -eq 1 ] || fail "/dev/zero should exit 1"
grep -q 'not a regular file' "$WORK/zero.err" || fail "/dev/zero: $(head -c 300 "$WORK/zero.err")"
mkfifo "$WORK/fifo"
"$BLIS" catalog import "$WORK/fifo" >/dev/null 2>"$WORK/fifo.err"
[ $? -eq 1 ] || fail "a FIFO should exit 1"
node -e '
  const fs = require("fs");
  const c = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  c._name_or_path = "acme/\u001b[31mred\nforged: /x";
  fs.writeFileSync(process.argv[2], JSON.stringify(c));
  fs.writeFileSync(process.argv[3], JSON.stringify(c).replace("\"hidden_size\"", "\"hidden_size\":1,\"hidden_size\""));' \
  "$FIX/Llama-2-7b-hf.json" "$WORK/ansi.json" "$WORK/dup.json" || fail "could not write the configs"
"$BLIS" catalog import "$WORK/ansi.json" --out "$WORK/ansi-entry.json" 2>"$WORK/ansi.err" \
  || fail "import of an escaped id: $(cat "$WORK/ansi.err")"
[ "$(wc -l <"$WORK/ansi.err")" -eq 1 ] || fail "one line expected: $(cat -v "$WORK/ansi.err")"
if grep -q "$(printf '\033')" "$WORK/ansi.err"; then fail "a raw escape: $(cat -v "$WORK/ansi.err")"; fi
grep -q 'acme/\\x1b\[31mred\\nforged' "$WORK/ansi.err" || fail "id not escaped: $(cat -v "$WORK/ansi.err")"
"$BLIS" catalog import "$WORK/dup.json" >/dev/null 2>"$WORK/dup.err"
[ $? -eq 2 ] || fail "a duplicate key should exit 2"
grep -q 'appears twice' "$WORK/dup.err" || fail "duplicate key: $(cat "$WORK/dup.err")"
# The entry inline in a scenario: the run works and its provenance says "estimate".
node -e '
  const fs = require("fs");
  const s = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
  const m = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
  s.catalog = Object.assign({}, s.catalog, {models: [m]});
  s.horizon = {duration_s: 3, drain: true};
  s.pools[0].model = m.id;
  s.pools[0].instances = 1;
  s.pools[0].parallelism.tp = 2;
  fs.writeFileSync(process.argv[3], JSON.stringify(s));' "$EXAMPLE" "$WORK/m.json" "$WORK/scenario.json" \
  || fail "could not build the scenario"
"$BLIS" run "$WORK/scenario.json" --out "$WORK/run" --quiet 2>"$WORK/run.err" || fail "run: $(cat "$WORK/run.err")"
grep -q 'acme/Mixtral-copy (inline); estimate: no calibration run covers it on H100-SXM-80GB' \
  "$WORK/run/summary.json" || fail "no estimate in the provenance: $(grep -o '"catalog[^]]*' "$WORK/run/summary.json")"
echo "cli_import_test: ok"
