// Entry point: styles, the simulation worker, and the app.
import './styles.css';
import { App } from './app/app';

const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
const app = new App(worker);
// A hook for the browser test's frame-time measurement (read-only numbers).
(window as unknown as { __blisFrameStats: () => unknown }).__blisFrameStats = () => app.frameStats();
void app.start();
