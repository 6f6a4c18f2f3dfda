// The simulation worker: owns the WASM module so the page never blocks on it.
import createBlisModule from './wasm/blis.mjs';
import wasmUrl from './wasm/blis.wasm?url';
import type { WorkerRequest, WorkerResponse } from './protocol';

type WorkerScope = {
  postMessage(message: WorkerResponse): void;
  onmessage: ((ev: MessageEvent<WorkerRequest>) => void) | null;
};
const scope = self as unknown as WorkerScope;

const modulePromise = createBlisModule({
  locateFile: (p: string) => (p.endsWith('.wasm') ? wasmUrl : p),
});

scope.onmessage = async (ev: MessageEvent<WorkerRequest>) => {
  try {
    const blis = await modulePromise;
    if (ev.data.kind === 'hello') scope.postMessage({ kind: 'ready', version: blis.version() });
  } catch (e) {
    scope.postMessage({ kind: 'error', message: e instanceof Error ? e.message : String(e) });
  }
};
