// node scripts/lib/ctest-tally.mjs CTEST_LOG REPORT_DIR
// Prints "PASSED FAILED" for one ctest run, counting test cases: a ctest test that is a whole
// GoogleTest executable (the WASM preset registers one per executable, cmake/BlisTesting.cmake)
// counts as the cases of its JSON report REPORT_DIR/<test>.json; every other ctest test counts
// once. An executable that failed without a report (it crashed) counts as one failure, and so
// does one whose cases all passed but whose process failed (e.g. at exit).
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const [logPath, reportDir] = process.argv.slice(2);
const line = /^\s*\d+\/\d+ Test\s+#\d+: (\S+) \.+.*?(Passed|\*\*\*\S+|Not Run|Failed)/;
let passed = 0;
let failed = 0;
for (const text of readFileSync(logPath, 'utf8').split('\n')) {
  const m = line.exec(text);
  if (!m) continue;
  const [, name, result] = m;
  const ok = result === 'Passed';
  const report = join(reportDir, `${name}.json`);
  if (!existsSync(report)) {
    if (ok) passed += 1;
    else failed += 1;
    continue;
  }
  const r = JSON.parse(readFileSync(report, 'utf8'));
  const cases = r.tests - (r.disabled ?? 0);
  const bad = (r.failures ?? 0) + (r.errors ?? 0);
  passed += cases - bad;
  failed += bad + (!ok && bad === 0 ? 1 : 0);
}
console.log(`${passed} ${failed}`);
