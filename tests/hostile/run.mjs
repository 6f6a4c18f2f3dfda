// node tests/hostile/run.mjs BLIS CORPUS_DIR [--every K] [--only REGEX] [--asan] [--timeout S]
// Runs every case of a corpus written by generate.mjs through the `blis` binary BLIS and checks
// what docs/reliability.md ("The hostile corpus") promises: every command ends within the time
// limit (60 s) and 2 GiB, with exit 0, 1 or 2 and no signal; every stderr line is one error
// naming a JSON pointer (or `blis CMD: ...`, or the bounded "... and N more" line); no control
// character or ANSI escape in stdout or stderr; no sanitizer report; no file written outside
// the case's --out. --every K runs every K-th case only (the ctest slice); --only REGEX the
// cases whose folder name matches (HOSTILE_VERBOSE=1 prints each finding as it is found). --asan: the binary is
// the ASan/UBSan build, whose shadow memory needs an unlimited address space, so the 2 GiB is
// checked on the peak RSS instead of with `ulimit -v`. Exit 0 when nothing was found.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

const argv = process.argv.slice(2);
const flag = (name, dflt) => { const i = argv.indexOf(name); if (i < 0) return dflt; const v = argv[i + 1]; argv.splice(i, 2); return v; };
const asan = argv.includes('--asan');
if (asan) argv.splice(argv.indexOf('--asan'), 1);
const every = Number(flag('--every', '1'));
const timeoutS = Number(flag('--timeout', '60'));
const only = new RegExp(flag('--only', ''));
const [BLIS, CORPUS] = argv.map((p) => path.resolve(p));
if (!BLIS || !CORPUS) {
  console.error('usage: node tests/hostile/run.mjs BLIS CORPUS_DIR [--every K] [--only REGEX] [--asan] [--timeout S]');
  process.exit(2);
}
const LIMIT_KIB = 2 * 1024 * 1024;
const manifest = JSON.parse(fs.readFileSync(path.join(CORPUS, 'manifest.json'), 'utf8'));

// The sandbox: PARENT/sandbox/cases/<case>/; the whole of PARENT is snapshotted around each command.
const PARENT = fs.mkdtempSync(path.join(os.tmpdir(), 'blis-hostile-'));
const SANDBOX = path.join(PARENT, 'sandbox');
fs.mkdirSync(path.join(SANDBOX, 'cases'), { recursive: true });
// Names the corpus uses to reach out of the sandbox: none may exist after a run.
const ESCAPES = ['/tmp/blis-hostile-escape', path.join(os.tmpdir(), 'blis-hostile-escape')];

function listTree(dir, out = new Map()) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() && !e.isSymbolicLink()) listTree(p, out);
    const st = fs.lstatSync(p);  // a folder's own stamp would change when --out is made in it
    out.set(p, st.isDirectory() ? 'dir' : `${st.size}:${st.mtimeMs}`);
  }
  return out;
}
function setup(dir, what) {
  for (const s of what) {
    if (s === 'fifo') spawnSync('mkfifo', [path.join(dir, 'fifo')]);
    if (s === 'link-out') fs.symlinkSync('/etc/passwd', path.join(dir, 'link-out'));
    if (s === 'dir') fs.mkdirSync(path.join(dir, 'dir'));
    if (s === 'big') { const fd = fs.openSync(path.join(dir, 'big.csv'), 'w'); fs.ftruncateSync(fd, 300 * 1024 * 1024); fs.closeSync(fd); }
  }
}
function commands(c) {
  switch (c.kind) {
    case 'scenario': case 'trace':
      return [['validate', 'scenario.json'], ['run', 'scenario.json', '--out', 'out', '--quiet']];
    case 'sweep': return [['sweep', 'sweep.json', '--out', 'out', '--jobs', '1', '--quiet']];
    case 'capacity': return [['capacity', 'scenario.json', ...c.args]];
    case 'conform': return [['conform', 'input.json', '--out', 'out/trace.json']];
    case 'epp-file': return [['run', 'scenario.json', '--epp-config', c.eppPath || 'epp.yaml', '--out', 'out', '--quiet']];
    case 'sweep-merge': return [['sweep-merge', ...c.shards, '--out', 'out']];
    case 'catalog-import': return [['catalog', 'import', c.configPath || 'config.json', ...c.args, '--out', 'out/model.json'],
      ['catalog', 'import', c.configPath || 'config.json', ...c.args]];
    default: throw new Error(`unknown kind ${c.kind}`);
  }
}
// One diagnostic line is fine when it names a pointer (after `warning: ` or the input's file
// name), is a command-level message (`blis CMD: ...`, then the usage text for a bad command
// line), or is the bounded summary.
const OK_LINE = [/^(warning: |[^\s:]+\.json: )?\/[^\n]{0,260}?: \S/, /^blis [a-z-]+( [a-z]+)?: \S/, /^… and \d+ more/];
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufffd]/;  // all but \t and \n; U+FFFD: invalid UTF-8
const SANITIZER = /AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:/;

const findings = [];
const exits = {};
let maxWall = 0, maxRss = 0, maxWallAt = '', maxRssAt = '', commandsRun = 0, casesRun = 0;
const t0 = Date.now();
manifest.forEach((c, index) => {
  if (index % every !== 0 || !only.test(c.dir)) return;
  casesRun++;
  const dir = path.join(SANDBOX, 'cases', c.dir);
  fs.cpSync(path.join(CORPUS, c.dir), dir, { recursive: true });
  setup(dir, c.setup);
  for (const cmd of commands(c)) {
    const where = `${c.dir}: blis ${cmd[0]}`;
    const find = (what) => { findings.push(`${where}: ${what}`); if (process.env.HOSTILE_VERBOSE) console.error(`${where}: ${what}`); };
    const before = listTree(PARENT);
    const timeFile = path.join(PARENT, 'time.txt');
    const limit = asan ? '' : `ulimit -v ${LIMIT_KIB}; `;
    const start = Date.now();
    const r = spawnSync('/usr/bin/time', ['-o', timeFile, '-f', '%M', 'timeout', '-s', 'KILL', String(timeoutS),
      'bash', '-c', `${limit}exec "$0" "$@"`, BLIS, ...cmd], {
      cwd: dir, encoding: 'utf8', maxBuffer: 1 << 30,
      env: { ...process.env, ASAN_OPTIONS: 'detect_leaks=1:abort_on_error=0', UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1' },
    });
    const wall = (Date.now() - start) / 1000;
    commandsRun++;
    const timeText = fs.existsSync(timeFile) ? fs.readFileSync(timeFile, 'utf8') : '';
    fs.rmSync(timeFile, { force: true });
    const rss = Number((timeText.match(/(\d+)\s*$/) || [0, 0])[1]);
    if (wall > maxWall) { maxWall = wall; maxWallAt = where; }
    if (rss > maxRss) { maxRss = rss; maxRssAt = where; }
    const code = r.status;
    exits[code] = (exits[code] || 0) + 1;
    if (code === 124 || code === 137) find(`no end within ${timeoutS} s`);
    else if (code > 128) find(`killed by signal ${code - 128}`);
    else if (![0, 1, 2].includes(code)) find(`exit ${code}`);
    if (rss > LIMIT_KIB) find(`peak RSS ${Math.round(rss / 1024)} MiB`);
    if (SANITIZER.test(r.stderr)) find(`sanitizer report: ${r.stderr.split('\n').find((l) => SANITIZER.test(l))}`);
    if (CONTROL.test(r.stdout)) find('a control character in stdout');
    if (CONTROL.test(r.stderr)) find('a control character in stderr');
    // `validate` reports on stdout; everything else on stderr.
    let lines = (cmd[0] === 'validate' ? r.stdout + r.stderr : r.stderr).split('\n').filter((l) => l.length > 0);
    if (cmd[0] === 'validate' && code === 0) lines = lines.filter((l) => l !== 'ok');
    const usage = lines.findIndex((l) => l.startsWith('usage: blis '));
    if (usage > 0 && /^blis [a-z-]+: /.test(lines[usage - 1])) lines = lines.slice(0, usage);
    for (const l of lines) {
      if (l.length > 1300) { find(`a stderr line of ${l.length} bytes`); break; }
      if (!OK_LINE.some((re) => re.test(l))) { find(`a stderr line naming no pointer: ${JSON.stringify(l.slice(0, 200))}`); break; }
    }
    if (lines.length > 60) find(`${lines.length} stderr lines`);
    // (capacity's exit 1, no value passes, is its stdout's last line)
    if ((code === 1 || code === 2) && lines.length === 0 && !(cmd[0] === 'capacity' && code === 1)) find(`exit ${code} with nothing on stderr`);
    const out = path.join(dir, 'out');
    for (const [p, stamp] of listTree(PARENT)) {
      if (before.get(p) === stamp || p === out || p.startsWith(out + path.sep)) continue;
      find(`wrote ${path.relative(PARENT, p)} outside --out`);
    }
    for (const e of ESCAPES) if (fs.readdirSync(path.dirname(e)).some((n) => n.startsWith(path.basename(e)))) find(`wrote ${e}*`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
});
fs.rmSync(PARENT, { recursive: true, force: true });
console.log(`${casesRun} cases, ${commandsRun} commands in ${((Date.now() - t0) / 1000).toFixed(1)} s` +
  `${asan ? ' (ASan/UBSan build)' : ''}; exits ${JSON.stringify(exits)}; slowest ${maxWall.toFixed(2)} s (${maxWallAt});` +
  ` peak RSS ${(maxRss / 1024).toFixed(0)} MiB (${maxRssAt}); ${findings.length} findings`);
for (const f of findings) console.log(`  ${f}`);
process.exit(findings.length ? 1 : 0);
