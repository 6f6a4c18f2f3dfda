// Loads the node build of the module (path from BLIS_NODE_MODULE, set by ctest, or the
// default build directory).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

export async function loadBlisModule() {
  const file = process.env.BLIS_NODE_MODULE ?? path.join(here, '../../build/wasm/wasm/blis_node.cjs');
  const require = createRequire(import.meta.url);
  const factory = require(file);
  return await factory();
}
