import { defineConfig } from 'vitest/config';

// base './' so the built site works from any path (scripts/play serves it, docs embed it).
// worker.format 'es': the Emscripten module uses import.meta.url (toolchain.md §6).
export default defineConfig({
  base: './',
  build: { target: 'es2022' },
  worker: { format: 'es' },
  // The real-run preset imports a scenario from examples/ at the repository root.
  server: { fs: { allow: ['..'] } },
  test: { environment: 'node', include: ['src/**/*.test.ts'] },
});
