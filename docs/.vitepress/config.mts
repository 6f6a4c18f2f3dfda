// The docs site (VitePress). Served beside the playground: the app at `/`, the docs at
// `/docs/` (scripts/lib/build-docs.sh copies the build into web/dist/docs). Demo pages embed
// the playground in embed mode through an iframe (theme/PlaygroundEmbed.vue).
//
// The sidebar lists every page that exists under docs/ (other parts of the project add
// pages as they land), titled by each page's first `# ` heading.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type DefaultTheme } from 'vitepress';

const docsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// Reading order for the pages we know of; any other page follows alphabetically.
const ORDER = ['architecture', 'scenario', 'engine', 'cluster', 'latency-model', 'catalog', 'rules',
  'metrics', 'accuracy', 'results', 'benchmarks', 'cli', 'playground'];
const DEMO_ORDER = ['prefix-caching', 'chunked-prefill', 'preemption', 'routing'];

function titleOf(file: string): string {
  const m = /^#\s+(.+)$/m.exec(readFileSync(file, 'utf8'));
  return m ? m[1]!.replace(/`/g, '').trim() : path.basename(file, '.md');
}

function pages(dir: string, order: string[]): DefaultTheme.SidebarItem[] {
  const rel = path.relative(docsDir, dir);
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.md') && f !== 'index.md' && !f.startsWith('_'))
    .map((f) => f.slice(0, -3));
  const rank = (n: string) => (order.includes(n) ? order.indexOf(n) : order.length);
  names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return names.map((n) => ({
    text: titleOf(path.join(dir, `${n}.md`)),
    link: `/${rel ? `${rel}/` : ''}${n}`,
  }));
}

export default defineConfig({
  title: 'BLIS Playground',
  description: 'A vLLM-faithful LLM-serving cluster simulator, native and in the browser.',
  base: '/docs/',
  lang: 'en-US',
  cleanUrls: false,
  lastUpdated: false,
  // Pages written across the project link to source files and to each other as they land.
  ignoreDeadLinks: true,
  srcExclude: ['**/README.md', 'images/**'],
  head: [['link', { rel: 'icon', href: 'data:,' }]],
  themeConfig: {
    nav: [
      { text: 'Playground', link: '../', target: '_self' },
      { text: 'Live demos', link: '/demos/prefix-caching' },
    ],
    sidebar: [
      { text: 'Guide', items: [{ text: 'Overview', link: '/' }, ...pages(docsDir, ORDER)] },
      { text: 'Live demos', items: pages(path.join(docsDir, 'demos'), DEMO_ORDER) },
    ],
    search: { provider: 'local' },
    outline: { level: [2, 3] },
    footer: { message: 'BLIS Playground documentation' },
  },
});
