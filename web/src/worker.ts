// The simulation worker: owns the WASM module so the page never blocks on it. Requests are
// handled strictly in order; each answer is posted with its big arrays transferred.
import createBlisModule from './wasm/blis.mjs';
import wasmUrl from './wasm/blis.wasm?url';
import { transferablesOf, type WorkerRequest, type WorkerResponse } from './protocol';
import { StaleRequest, WorkerCore } from './sim/worker_core';
import { wasmSimulationModule } from './sim/wasm_backend';

type WorkerScope = {
  postMessage(message: WorkerResponse, transfer: Transferable[]): void;
  onmessage: ((ev: MessageEvent<WorkerRequest>) => void) | null;
};
const scope = self as unknown as WorkerScope;

const corePromise = createBlisModule({
  locateFile: (p: string) => (p.endsWith('.wasm') ? wasmUrl : p),
}).then((blis) => new WorkerCore(wasmSimulationModule(blis)));

let queue: Promise<void> = Promise.resolve();

scope.onmessage = (ev: MessageEvent<WorkerRequest>) => {
  const req = ev.data;
  queue = queue.then(async () => {
    try {
      const core = await corePromise;
      for (const r of core.handle(req)) scope.postMessage(r, transferablesOf(r));
    } catch (e) {
      if (e instanceof StaleRequest) return;
      const slot = 'slot' in req ? req.slot : undefined;
      const gen = 'gen' in req ? req.gen : undefined;
      scope.postMessage({ kind: 'error', slot, gen, message: e instanceof Error ? e.message : String(e) }, []);
    }
  });
};
