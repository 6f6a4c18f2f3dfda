// Browser tier: serves the built site (vite preview: the app at /, the docs at /docs/) on
// 127.0.0.1, drives Debian's Chromium with playwright-core, and checks what a user sees.
// Screenshots and downloads go to the artifacts folder given as the first argument. The
// last line printed is `N passed, N failed`.
//
// BLIS_UPDATE_SCREENSHOT=1 also writes docs/images/playground.png (the README's picture).
import { runAll } from './browser/harness.mjs';
import './browser/playground.mjs';
import './browser/views.mjs';
import './browser/sweep.mjs';
import './browser/walk.mjs';

await runAll();
