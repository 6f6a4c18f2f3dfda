// Entry point: styles, the simulation worker, and the app.
import './styles.css';
import { App } from './app/app';

// ?theme=dark|light overrides the system's colour scheme (the docs pass theirs to embeds).
const theme = new URLSearchParams(location.search).get('theme');
if (theme === 'dark' || theme === 'light') document.documentElement.classList.add(`theme-${theme}`);

const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
const app = new App(worker);
// A hook for the browser test's frame-time measurement (read-only numbers).
(window as unknown as { __blisFrameStats: () => unknown }).__blisFrameStats = () => app.frameStats();
void app.start();
