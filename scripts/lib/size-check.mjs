#!/usr/bin/env node
// scripts/lib/size-check.mjs: the size limits of the developers' guide (docs/development.md
// "Size limits"): no tracked source file over 600 lines and no C++ function body over 120
// lines. Data tables (brace initialisers such as `= {`, aggregate rows) are not functions and
// are not counted. TypeScript functions are checked by ESLint (web/eslint.config.js,
// max-lines-per-function). Prints one line per violation and exits 1 if there is any.
//
// The C++ scan is lexical: comments, string and character literals (raw strings included) are
// blanked first, then each `{` at namespace or class scope opens a function body when the
// text before it ends in a parameter list (`)`, optionally followed by qualifiers, a trailing
// return type or a constructor's initialiser list). Everything nested in a body belongs to it.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const MAX_FILE_LINES = 600;
const MAX_FUNCTION_LINES = 120;
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const SOURCE = /\.(cpp|h|ts|mjs|js)$/;
const DIRS = ['core', 'rules', 'cli', 'wasm', 'conform', 'bench', 'tests', 'scripts', 'web/src', 'web/tests'];

// Blanks comments and literals with spaces, keeping newlines, so offsets and lines stay true.
export function blankCpp(src) {
  const out = src.split('');
  const blank = (from, to) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    const next = src[i + 1];
    if (c === '/' && next === '/') {
      const end = src.indexOf('\n', i);
      const stop = end < 0 ? src.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === '/' && next === '*') {
      const end = src.indexOf('*/', i + 2);
      const stop = end < 0 ? src.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === 'R' && next === '"' && !/[\w]/.test(src[i - 1] ?? '')) {
      const open = src.indexOf('(', i + 2);
      const delim = src.slice(i + 2, open);
      const close = src.indexOf(`)${delim}"`, open);
      const stop = close < 0 ? src.length : close + delim.length + 2;
      blank(i + 1, stop);
      i = stop;
    } else if (c === '"' || (c === "'" && !/[0-9a-fA-F]/.test(src[i - 1] ?? ''))) {
      let j = i + 1;
      while (j < src.length && src[j] !== c && src[j] !== '\n') j += src[j] === '\\' ? 2 : 1;
      blank(i + 1, j);
      i = j + 1;
    } else {
      i++;
    }
  }
  return out.join('');
}

const QUALIFIERS = /\)\s*(?:const|noexcept(?:\s*\([^()]*\))?|override|final|mutable|volatile|&&?|\s)*(?:->\s*[\w:<>,\s*&]+)?\s*$/;
// `) : member_(x), other_{y}` before a constructor's body.
const INITIALISERS = /\)\s*(?:noexcept\s*)?:\s*[\w:]+\s*[({][\s\S]*$/;

function isFunctionBody(before) {
  const head = before.trimEnd();
  if (/=\s*$/.test(head) || /\breturn\s*$/.test(head)) return false;
  if (/\b(namespace|class|struct|union|enum)\b[^;{}()]*$/.test(head)) return false;
  return QUALIFIERS.test(head) || INITIALISERS.test(head);
}

// Every function body of a C++ source: { name, startLine, lines, tableLines }. `lines` counts
// the body's lines outside data tables: brace initialisers opened after `=`, `return` or `(`
// (a table of rows, a list of test cases), whose inner lines are not code.
export function cppFunctions(src) {
  const text = blankCpp(src);
  const found = [];
  const stack = []; // 'scope' (namespace, class, extern) | 'body' | 'init' | 'other'
  let lastStop = 0; // offset after the last `;`, `{` or `}` at scope level
  let line = 1;
  let body = null;
  let initOpenLine = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') {
      line++;
      continue;
    }
    const inBody = stack.includes('body');
    if (c === '{') {
      if (inBody) {
        const prev = text.slice(Math.max(0, i - 80), i).trimEnd();
        const inInit = stack[stack.length - 1] === 'init';
        const opensTable = /(=|\breturn|\()$/.test(prev) || (inInit && /[{,]$/.test(prev));
        if (opensTable && !inInit) initOpenLine = line;
        stack.push(opensTable || inInit ? 'init' : 'other');
        continue;
      }
      const before = text.slice(lastStop, i);
      if (isFunctionBody(before)) {
        const m = /([~\w:]+(?:operator\s*\S+)?)\s*\(/.exec(before.replace(/\s+/g, ' '));
        body = { name: m ? m[1] : before.trim().slice(-60), startLine: line, tableLines: 0 };
        stack.push('body');
      } else if (/\b(namespace|class|struct|union|extern)\b/.test(before) && !/=\s*$/.test(before.trimEnd())) {
        stack.push('scope');
      } else {
        stack.push('other');
      }
      lastStop = i + 1;
    } else if (c === '}') {
      const kind = stack.pop();
      if (kind === 'init' && stack[stack.length - 1] !== 'init' && body)
        body.tableLines += Math.max(0, line - initOpenLine - 1);
      if (kind === 'body' && body) {
        const total = line - body.startLine + 1;
        found.push({ ...body, lines: total - body.tableLines });
        body = null;
      }
      if (!stack.includes('body')) lastStop = i + 1;
    } else if (c === ';' && !inBody && !stack.includes('other')) {
      lastStop = i + 1;
    }
  }
  return found;
}

function trackedSources() {
  const out = execFileSync('git', ['-C', root, 'ls-files', '--', ...DIRS], { encoding: 'utf8' });
  return out.split('\n').filter((f) => SOURCE.test(f) && !f.includes('/fixtures/') && !f.includes('/data/'));
}

function main() {
  const problems = [];
  let files = 0;
  let functions = 0;
  for (const file of trackedSources()) {
    const src = readFileSync(path.join(root, file), 'utf8');
    files++;
    const lines = src.split('\n').length - (src.endsWith('\n') ? 1 : 0);
    if (lines > MAX_FILE_LINES) problems.push(`${file}: ${lines} lines (limit ${MAX_FILE_LINES})`);
    if (!/\.(cpp|h)$/.test(file)) continue;
    for (const f of cppFunctions(src)) {
      functions++;
      if (f.lines > MAX_FUNCTION_LINES)
        problems.push(`${file}:${f.startLine}: ${f.name}: ${f.lines} lines (limit ${MAX_FUNCTION_LINES})`);
    }
  }
  for (const p of problems) console.log(p);
  console.log(`size check: ${files} files, ${functions} C++ function bodies, ${problems.length} over the limits`);
  process.exit(problems.length ? 1 : 0);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) main();
