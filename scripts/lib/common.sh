# Shared by scripts/play and scripts/test: install only what is missing, quietly.
# Sourced; expects ROOT to be the project root.

export DEBIAN_FRONTEND=noninteractive
export NODE_PATH=/usr/share/nodejs   # em++ links need Debian's acorn (toolchain.md gotcha 1)

log() { printf '%s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    die "need root to run: $*"; fi
}

# ensure_system_packages [--browser]: apt-installs the build's packages that are missing.
ensure_system_packages() {
  local need=()
  command -v cmake  >/dev/null || need+=(cmake)
  command -v ninja  >/dev/null || need+=(ninja-build)
  command -v g++    >/dev/null || need+=(g++)
  command -v node   >/dev/null || need+=(nodejs)
  command -v npm    >/dev/null || need+=(npm)
  command -v em++   >/dev/null || need+=(emscripten)
  command -v clang-format >/dev/null || need+=(clang-format)
  [ -f /usr/include/nlohmann/json.hpp ]         || need+=(nlohmann-json3-dev)
  [ -f /usr/src/googletest/CMakeLists.txt ]     || need+=(googletest)
  [ -f /usr/include/gtest/gtest.h ]             || need+=(libgtest-dev)
  [ -f /usr/include/benchmark/benchmark.h ]     || need+=(libbenchmark-dev)
  if [ "${1:-}" = "--browser" ]; then
    command -v chromium >/dev/null || need+=(chromium)
  fi
  [ ${#need[@]} -eq 0 ] && return 0
  log "installing missing packages: ${need[*]}"
  as_root apt-get update -qq
  as_root apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
}

# ensure_web_packages: `npm ci` in web/ when node_modules does not match package-lock.json.
ensure_web_packages() {
  local stamp="$ROOT/web/node_modules/.blis-lock-sha"
  local want
  want=$(sha256sum "$ROOT/web/package-lock.json" | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return 0; fi
  log "installing web packages (npm ci)"
  (cd "$ROOT/web" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || die "npm ci failed in web/"
  echo "$want" > "$stamp"
}

# ensure_docs_packages: `npm ci` in docs/ (VitePress) when node_modules does not match its lock.
ensure_docs_packages() {
  local stamp="$ROOT/docs/node_modules/.blis-lock-sha"
  local want
  want=$(sha256sum "$ROOT/docs/package-lock.json" | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return 0; fi
  log "installing docs packages (npm ci)"
  (cd "$ROOT/docs" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || die "npm ci failed in docs/"
  echo "$want" > "$stamp"
}

# run_logged NAME CMD...: runs CMD with its output in build/logs/NAME.log; shows the log's
# tail on failure.
run_logged() {
  local name=$1; shift
  mkdir -p "$ROOT/build/logs"
  local logfile="$ROOT/build/logs/$name.log"
  if "$@" >"$logfile" 2>&1; then return 0; fi
  log "---- $name failed; last lines of build/logs/$name.log ----"
  tail -n 60 "$logfile" >&2
  return 1
}

# run_progress NAME CMD...: like run_logged, but while CMD runs shows the build's progress
# (ninja's last "[n/N]") and the elapsed time, so a long first build is never silent. On a
# terminal one line is redrawn every second; otherwise a line is printed when the count
# moves (at most every 5 s) and at least every 30 s.
run_progress() {
  local name=$1; shift
  mkdir -p "$ROOT/build/logs"
  local logfile="$ROOT/build/logs/$name.log"
  : >"$logfile"
  local t0=$SECONDS tty=0 last="" printed=-100 rc=0 prog elapsed
  [ -t 2 ] && tty=1
  "$@" >"$logfile" 2>&1 &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    prog=$(grep -oE '^\[[0-9]+/[0-9]+\]' "$logfile" | tail -n 1 || true)
    elapsed=$(fmt_elapsed $((SECONDS - t0)))
    if [ $tty -eq 1 ]; then
      printf '\r  %s: %s %s ' "$name" "${prog:-running}" "$elapsed" >&2
    elif { [ "$prog" != "$last" ] && [ $((SECONDS - printed)) -ge 5 ]; } || [ $((SECONDS - printed)) -ge 30 ]; then
      printf '  %s: %s %s\n' "$name" "${prog:-running}" "$elapsed" >&2
      printed=$SECONDS; last=$prog
    fi
    sleep 1
  done
  wait "$pid" || rc=$?
  [ $tty -eq 1 ] && printf '\r\033[K' >&2
  if [ $rc -eq 0 ]; then
    log "  $name: done in $(fmt_elapsed $((SECONDS - t0)))"
    return 0
  fi
  log "---- $name failed; last lines of build/logs/$name.log ----"
  tail -n 60 "$logfile" >&2
  return 1
}

fmt_elapsed() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# build_native [TARGET...]: configures and builds build/native (every target, or only those
# named; scripts/play --cli builds only `blis`).
build_native() {
  local targets=()
  [ $# -gt 0 ] && targets=(--target "$@")
  run_logged native-configure cmake --preset native &&
    run_progress native-build cmake --build --preset native "${targets[@]}"
}

# build_wasm [TARGET...]: the same for build/wasm (scripts/play builds only `blis_web`, the
# module the site loads; scripts/test builds everything, tests included).
build_wasm() {
  local targets=()
  [ $# -gt 0 ] && targets=(--target "$@")
  run_logged wasm-configure cmake --preset wasm &&
    run_progress wasm-build cmake --build --preset wasm "${targets[@]}"
}

build_web() {
  ensure_web_packages
  run_progress web-build bash -c "cd '$ROOT/web' && npm run --silent build"
}
