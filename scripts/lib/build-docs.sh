#!/usr/bin/env bash
# Builds the docs site (VitePress, docs/) and places it beside the playground build, so one
# server serves both: the app at /, the docs at /docs/. Run after the web build (it copies
# into web/dist/docs). Used by scripts/play and scripts/test.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/scripts/lib/common.sh"

ensure_docs_packages
run_progress docs-build bash -c "cd '$ROOT/docs' && npx --no-install vitepress build ." || exit 1
[ -d "$ROOT/web/dist" ] || die "web/dist is missing: build the web app first"
rm -rf "$ROOT/web/dist/docs"
cp -r "$ROOT/docs/.vitepress/dist" "$ROOT/web/dist/docs"
