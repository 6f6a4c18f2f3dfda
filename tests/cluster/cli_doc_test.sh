#!/usr/bin/env bash
# docs/cli.md is the CLI's own help text (scripts/gen-cli-doc): regenerate and compare.
# usage: cli_doc_test.sh BLIS SOURCE_DIR WORK_DIR
set -u
BLIS=$1 SRC=$2 WORK=$3
mkdir -p "$WORK"
"$SRC/scripts/gen-cli-doc" "$BLIS" "$WORK/cli.md" || { echo "FAIL: gen-cli-doc exited $?"; exit 1; }
if ! diff -u "$SRC/docs/cli.md" "$WORK/cli.md" >"$WORK/diff"; then
  echo "FAIL: docs/cli.md differs from the CLI's help (run scripts/gen-cli-doc build/native/cli/blis docs/cli.md):"
  head -40 "$WORK/diff"
  exit 1
fi
echo "cli_doc_test: ok"
