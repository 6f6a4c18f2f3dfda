// Loads the Embind module under node: the one build, blis.mjs + blis.wasm, that the browser
// page and its Web Worker load too (wasm/CMakeLists.txt). Its glue is written for the web, so
// it cannot fetch the .wasm file itself in node; it is handed the bytes (`wasmBinary`), as the
// web app's vitest suites do. The path is BLIS_NODE_MODULE when set (ctest sets it), else the
// wasm preset's build directory. Used by wasm/tests, bench/run-wasm.mjs and
// tests/fuzz/wasm_api.mjs.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

export function blisModulePath() {
  return process.env.BLIS_NODE_MODULE ?? path.join(here, '../build/wasm/wasm/blis.mjs');
}

export async function loadBlisModule() {
  const file = path.resolve(blisModulePath());
  const wasmBinary = readFileSync(file.replace(/\.m?js$/, '.wasm'));
  const { default: createBlisModule } = await import(pathToFileURL(file).href);
  return await createBlisModule({ wasmBinary });
}
