import { describeResponse, type WorkerResponse } from './protocol';

const versionEl = document.getElementById('module-version');
const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });

worker.onmessage = (ev: MessageEvent<WorkerResponse>) => {
  if (versionEl) versionEl.textContent = describeResponse(ev.data);
  document.body.dataset['ready'] = ev.data.kind === 'ready' ? '1' : 'error';
};
worker.postMessage({ kind: 'hello' });
