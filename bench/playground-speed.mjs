// node bench/playground-speed.mjs [SCENARIO.json | preset:NAME] [--seconds S] [--site DIR]
//
// The playground at max speed, measured in the browser as a user runs it: serves the built
// site (web/dist, or DIR) on 127.0.0.1, opens the scenario in Debian's Chromium (headless,
// playwright-core), picks "max" speed, presses Play and, after a 2 s warm-up, measures for S
// wall seconds (default 20). Prints one JSON line: simulated seconds and engine steps per
// wall second, and the page's frame times since Play (issue 16's target: 5x more per wall
// second than the first release, frames <= 16.7 ms at p95). Wall-clock figures: run it on a
// quiet machine and compare runs made back to back (--site points at another build). Needs
// `cd web && npm run build` first.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { deflateRawSync } from "node:zlib";
import { createRequire } from "node:module";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const seconds = Number(option("--seconds", "20"));
const site = path.resolve(option("--site", path.join(repo, "web/dist")));
const target = args[0] ?? "preset:default";
if (!(seconds > 0) || !existsSync(path.join(site, "index.html"))) {
  console.error(
    "usage: node bench/playground-speed.mjs [SCENARIO.json | preset:NAME] [--seconds S] [--site DIR]",
  );
  console.error(
    `(the site must be built: ${site}/index.html; cd web && npm run build)`,
  );
  process.exit(2);
}
// playwright-core is a dev dependency of web/.
const { chromium } = createRequire(path.join(repo, "web/package.json"))(
  "playwright-core",
);

const port = Number(process.env.BLIS_BENCH_PORT ?? 4199);
const base = `http://127.0.0.1:${port}/`;
const query = target.startsWith("preset:")
  ? target === "preset:default"
    ? ""
    : `?preset=${encodeURIComponent(target.slice(7))}`
  : `?s=${deflateRawSync(readFileSync(target)).toString("base64url")}`;

// A static server for the built site (vite preview would need web/ as its root).
const server = spawn(process.execPath, ["-e", staticServer()], {
  stdio: ["ignore", "pipe", "inherit"],
});
await new Promise((resolve, reject) => {
  server.stdout.once("data", resolve);
  server.once("exit", (c) => reject(new Error(`static server exited (${c})`)));
});

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--no-sandbox"],
});
try {
  const page = await (
    await browser.newContext({ viewport: { width: 1280, height: 800 } })
  ).newPage();
  await page.goto(base + query);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
  await page.waitForFunction(
    () =>
      document
        .querySelector('[data-testid="run-status"]')
        ?.textContent?.trim() === "ready",
    null,
    { timeout: 60000 },
  );
  await page.selectOption('[data-testid="speed"]', "Infinity");
  await page.click('[data-testid="play"]');
  const sample = () =>
    page.evaluate(() => {
      const num = (id) =>
        Number(
          document.querySelector(`[data-testid="${id}"]`)?.textContent ?? "NaN",
        );
      const frames = window.__blisFrameStats ? window.__blisFrameStats() : null;
      return {
        wall: performance.now(),
        sim: num("sim-time"),
        steps: num("sim-steps"),
        status: document
          .querySelector('[data-testid="run-status"]')
          ?.textContent?.trim(),
        frames,
      };
    });
  await page.waitForTimeout(2000); // warm-up: the worker's event budget adapts (a benchmark, not a test)
  const a = await sample();
  await page.waitForTimeout(seconds * 1000);
  const b = await sample();
  const wall = (b.wall - a.wall) / 1000;
  console.log(
    JSON.stringify({
      scenario: target,
      wall_s: Number(wall.toFixed(2)),
      sim_s_per_wall_s: Number(((b.sim - a.sim) / wall).toFixed(2)),
      steps_per_wall_s: Math.round((b.steps - a.steps) / wall),
      status_at_end: b.status,
      frame_ms: b.frames, // every frame since Play, warm-up included
    }),
  );
  if (b.status === "done")
    console.error(
      "note: the run finished inside the window: use a longer scenario",
    );
} finally {
  await browser.close();
  server.kill();
}

function staticServer() {
  return `
const http = require('node:http'), fs = require('node:fs'), path = require('node:path');
const root = ${JSON.stringify(site)};
const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png' };
http.createServer((req, res) => {
  const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  let file = path.join(root, path.normalize(rel));
  if (!file.startsWith(root)) { res.writeHead(403); return res.end(); }
  if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
  if (!fs.existsSync(file)) { res.writeHead(404); return res.end(); }
  res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream' });
  fs.createReadStream(file).pipe(res);
}).listen(${port}, '127.0.0.1', () => console.log('listening'));
`;
}
