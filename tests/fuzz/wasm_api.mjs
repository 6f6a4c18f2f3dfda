// Fuzzes the WASM Embind API from node (docs/reliability.md "Fuzzing"): random programs of
// calls with random or hostile arguments (mutated scenarios, bad JSON, huge, negative, NaN
// and non-integer numbers, out-of-range indices, calls in the wrong order, after delete).
// Every call must return or throw a JS Error with a one-line message: never a raw number (a
// C++ exception that escaped the binding layer), never a WebAssembly.RuntimeError (an abort,
// after which the module is dead). validateScenario and Simulation.load must agree, and the
// same program run twice must give the same digest.
//
//   node tests/fuzz/wasm_api.mjs SECONDS [SEED] [OUT_DIR]
//   node tests/fuzz/wasm_api.mjs --replay FILE...
// A program is JSON ({"scenario": text, "calls": [[name, ...args], ...]}); a failing one is
// written to OUT_DIR (default build/fuzz/wasm_api) as crash-<n>.json and the exit code is 1.
// Every program in tests/fuzz/corpus/wasm_api is replayed first (the regression set).
// The module is the wasm preset's blis.mjs (or BLIS_NODE_MODULE), loaded by wasm/load_node.mjs.
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBlisModule } from '../../wasm/load_node.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '../..');
// A WASM call cannot be interrupted from its own thread: the random programs run in a worker,
// and this (main) thread is a watchdog that turns a program taking longer than
// WASM_API_PROGRAM_LIMIT_S (default 120 s) into a finding (unbounded work in one call).
const watchdog = isMainThread && process.argv[2] !== '--replay';
const blis = watchdog ? null : await loadBlisModule();
const baseScenario = readFileSync(path.join(root, 'wasm/tests/fixtures/small.json'), 'utf8');

// xorshift32: the same SEED gives the same programs (no Math.random).
function rng(seed) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s;
  };
  return { int: (n) => next() % n, pick: (a) => a[next() % a.length], chance: (k) => next() % k === 0 };
}

const hostileNumbers = [-1, 0, 1, 0.5, -0.0, 1e-300, 1e308, -1e308, 2 ** 31, 2 ** 31 - 1, 2 ** 32,
  2 ** 53, 2 ** 53 + 2, 2 ** 63, 1e12, 1e18, -(2 ** 31)];
const hostileStrings = ['', 'x'.repeat(5000), '\u0000\n\u001b[31mred\r', '../../etc/passwd', '/dev/zero',
  '\uD800', 'é'.repeat(300), '1.99999999999g', '9T', 'null', '{}', '[]', ' '];

function hostileValue(r, depth = 0) {
  switch (r.int(8)) {
    case 0: return r.pick(hostileNumbers);
    case 1: return r.pick(hostileStrings);
    case 2: return null;
    case 3: return r.chance(2);
    case 4: return depth < 3 ? [hostileValue(r, depth + 1)] : [];
    case 5: return depth < 3 ? { [r.pick(['a', 'name', 'dist', 'rate', '', 'min'])]: hostileValue(r, depth + 1) } : {};
    case 6: return r.int(100000) - 50000;
    default: return r.int(1000) / 7;
  }
}

// Every (container, key) pair of a JSON value, for picking a mutation site.
function sites(v, out = []) {
  if (v && typeof v === 'object') {
    for (const k of Object.keys(v)) {
      out.push([v, Array.isArray(v) ? Number(k) : k]);
      sites(v[k], out);
    }
  }
  return out;
}

function scenarioText(r) {
  const roll = r.int(20);
  if (roll === 0) return baseScenario.slice(0, r.int(baseScenario.length));
  if (roll === 1) return baseScenario + '\u0000garbage';
  if (roll === 2) return '['.repeat(r.int(5000)) + ']'.repeat(r.int(3));
  if (roll === 3) return String.fromCharCode(...Array.from({ length: r.int(200) }, () => r.int(0x3000)));
  const doc = JSON.parse(baseScenario);
  const n = 1 + r.int(4);
  for (let i = 0; i < n; i++) {
    const all = sites(doc);
    const [obj, key] = r.pick(all);
    const m = r.int(6);
    if (m === 0 && !Array.isArray(obj)) delete obj[key];
    else if (m === 1 && !Array.isArray(obj)) obj[r.pick(['surprise', 'name', 'seed', 'slo', 'outputs'])] = hostileValue(r);
    else obj[key] = hostileValue(r);
  }
  return JSON.stringify(doc);
}

function argFor(r) {
  const roll = r.int(6);
  if (roll === 0) return r.pick(hostileNumbers);
  if (roll === 1) return r.pick([NaN, Infinity, -Infinity, -5, 1.5]);
  return r.int(r.chance(3) ? 3 : 2_000_000);
}

const simCalls = ['advance', 'advanceOneStep', 'done', 'nowUs', 'steps', 'events', 'summaryJson', 'digest',
  'timeseriesJson', 'seriesColumns', 'seriesLength', 'seriesView', 'instanceNames', 'metricsText',
  'engineSnapshot', 'requestsCsv', 'reset', 'load', 'delete'];

function makeProgram(r) {
  const calls = [];
  const n = 3 + r.int(25);
  for (let i = 0; i < n; i++) {
    const name = r.chance(6) ? r.pick(['validateScenario', 'effectiveScenario', 'importHfConfig', 'catalogIds',
      'samplerDigestHex', 'version']) : r.pick(simCalls);
    // advance(until, maxEvents) does the work it is asked for: the event budget stays bounded
    // (hostile values only where they cannot ask for more work), as the playground's slices are.
    if (name === 'advance') calls.push([name, argFor(r), r.chance(4) ? r.pick([NaN, -Infinity, -5, 0, 1.5]) : r.int(20000)]);
    else if (['seriesView', 'metricsText', 'engineSnapshot'].includes(name)) calls.push([name, r.chance(2) ? r.int(4) : argFor(r)]);
    else if (name === 'load' || name === 'validateScenario' || name === 'effectiveScenario') calls.push([name, scenarioText(r)]);
    else if (name === 'importHfConfig') calls.push([name, r.chance(2) ? '{"hidden_size": 1e300}' : r.pick(hostileStrings), r.pick(hostileStrings)]);
    else if (name === 'samplerDigestHex') calls.push([name, argFor(r), r.chance(2) ? r.int(1000) : argFor(r)]);
    else calls.push([name]);
  }
  return { scenario: scenarioText(r), calls };
}

class Finding extends Error {}

function checkThrown(e, what) {
  if (e instanceof Finding) throw e;
  if (e instanceof WebAssembly.RuntimeError) throw new Finding(`${what}: the module aborted (${e.message})`);
  if (!(e instanceof Error)) throw new Finding(`${what}: threw a non-Error ${typeof e} ${String(e).slice(0, 80)}`);
  if (typeof e.message !== 'string' || e.message.length > 20000) throw new Finding(`${what}: unbounded message`);
  if (/Aborted\(|unreachable/.test(e.message)) throw new Finding(`${what}: abort (${e.message.slice(0, 200)})`);
}

function checkDiagnostics(d, what) {
  if (!Array.isArray(d)) throw new Finding(`${what}: diagnostics are not an array`);
  if (d.length > 1000) throw new Finding(`${what}: ${d.length} diagnostics (uncapped)`);
  for (const x of d) {
    if (typeof x.pointer !== 'string' || typeof x.message !== 'string') throw new Finding(`${what}: malformed diagnostic`);
    if (x.severity !== 'error' && x.severity !== 'warning') throw new Finding(`${what}: bad severity`);
    if (/[\n\r]/.test(x.message) || x.message.length > 2000) throw new Finding(`${what}: message not one bounded line`);
  }
}

// Runs a program; returns the digests seen (for the determinism check). Throws Finding.
function run(program) {
  let sim = new blis.Simulation();
  let alive = true;
  const digests = [];
  const first = sim.load(program.scenario);
  checkDiagnostics(first, 'load');
  const v = blis.validateScenario(program.scenario);
  checkDiagnostics(v, 'validateScenario');
  if (JSON.stringify(v) !== JSON.stringify(first)) throw new Finding('validateScenario and load disagree');
  for (const [name, ...args] of program.calls) {
    const what = `${name}(${args.map((a) => JSON.stringify(a)?.slice(0, 40)).join(', ')})`;
    try {
      if (name === 'delete') {
        if (alive) { sim.delete(); alive = false; }
        sim = new blis.Simulation();
        alive = true;
        continue;
      }
      if (name in blis && typeof blis[name] === 'function' && name !== 'Simulation') {
        const out = blis[name](...args);
        if (name === 'validateScenario') checkDiagnostics(out, what);
        if (name === 'effectiveScenario') JSON.parse(out);
        continue;
      }
      const out = sim[name](...args);
      if (name === 'load') checkDiagnostics(out, what);
      if (name === 'summaryJson' || name === 'engineSnapshot' || name === 'timeseriesJson') JSON.parse(out);
      if (name === 'digest') digests.push(out);
    } catch (e) {
      checkThrown(e, what);
    }
  }
  if (alive) sim.delete();
  return digests;
}

function runChecked(program) {
  const a = run(program);
  const b = run(program);
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Finding('the same program gave different digests');
}

function replayDir(dir) {
  let n = 0;
  let files = [];
  try { files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort(); } catch { return 0; }
  for (const f of files) {
    const text = readFileSync(path.join(dir, f), 'utf8');
    parentPort?.postMessage({ program: text, index: `corpus ${f}` });
    runChecked(JSON.parse(text));
    n++;
  }
  return n;
}

const argv = process.argv.slice(2);
if (argv[0] === '--replay') {
  for (const f of argv.slice(1)) runChecked(JSON.parse(readFileSync(f, 'utf8')));
  console.log(`wasm_api: replayed ${argv.length - 1} programs, no finding`);
  process.exit(0);
}
const seconds = Number(argv[0] ?? 10);
const seed = Number(argv[1] ?? 1);
const outDir = argv[2] ?? path.join(root, 'build/fuzz/wasm_api');
if (watchdog) {
  const limitMs = Number(process.env.WASM_API_PROGRAM_LIMIT_S ?? 120) * 1000;
  const worker = new Worker(fileURLToPath(import.meta.url), { argv });
  let current = null;
  let since = performance.now();
  worker.on('message', (m) => {
    if (m.program) { current = m; since = performance.now(); }
    if (m.log) console.log(m.log);
  });
  worker.on('exit', (code) => { clearInterval(timer); process.exit(code); });
  worker.on('error', (e) => { console.error(`wasm_api: the fuzz thread failed: ${e.message}`); process.exit(1); });
  const timer = setInterval(() => {
    if (current === null || performance.now() - since < limitMs) return;
    mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, `slow-${seed}-${String(current.index).replace(/[^\w.-]+/g, '_')}.json`);
    writeFileSync(file, current.program);
    console.error(`wasm_api: FINDING after ${current.index} programs: one program ran over ${limitMs / 1000} s\n  program: ${file}`);
    worker.terminate().then(() => process.exit(1));
  }, 1000);
} else {
const replayed = replayDir(path.join(here, 'corpus/wasm_api'));
const r = rng(seed);
const start = performance.now();
let programs = 0;
let lastReport = start;
// The program being run is kept in OUT_DIR/in-progress.json: a WASM call cannot be interrupted
// from this thread, so a program that never returns is found by this file (and the progress
// lines stop), then replayed alone with --replay.
mkdirSync(outDir, { recursive: true });
const inProgress = path.join(outDir, 'in-progress.json');
while (performance.now() - start < seconds * 1000) {
  const program = makeProgram(r);
  const text = JSON.stringify(program);
  writeFileSync(inProgress, text);
  parentPort?.postMessage({ program: text, index: programs });
  if (performance.now() - lastReport > 60000) {
    lastReport = performance.now();
    // The heap in use between programs (every Simulation deleted): flat when nothing leaks.
    // Through the watchdog: the worker's own stdout is flushed only when its loop yields.
    const line = `wasm_api: ${programs} programs after ${Math.round((lastReport - start) / 1000)} s, ` +
      `heap in use ${blis.heapBytesInUse()} bytes`;
    if (parentPort) parentPort.postMessage({ log: line }); else console.log(line);
  }
  try {
    runChecked(program);
  } catch (e) {
    mkdirSync(outDir, { recursive: true });
    const file = path.join(outDir, `crash-${seed}-${programs}.json`);
    writeFileSync(file, JSON.stringify(program));
    console.error(`wasm_api: FINDING after ${programs} programs: ${e.message}\n  program: ${file}`);
    process.exit(1);
  }
  programs++;
}
console.log(`wasm_api: ${replayed} corpus programs replayed, ${programs} random programs in ${seconds} s (seed ${seed}), ` +
  `heap in use ${blis.heapBytesInUse()} bytes, no finding`);
}
