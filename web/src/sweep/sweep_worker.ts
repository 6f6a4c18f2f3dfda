// A sweep worker: its own copy of the WASM module, answering the sweep view's requests in
// order (one point at a time). The view starts one per core and terminates them to cancel.
import createBlisModule from '../wasm/blis.mjs';
import wasmUrl from '../wasm/blis.wasm?url';
import { PAUSE_MIN_MS } from './pacer';
import { answerSweepRequest, type Slicing } from './sweep_core';
import type { SweepRequest, SweepResponse } from './protocol';

type WorkerScope = {
  postMessage(message: SweepResponse): void;
  onmessage: ((ev: MessageEvent<SweepRequest>) => void) | null;
};
const scope = self as unknown as WorkerScope;

const modulePromise = createBlisModule({
  locateFile: (p: string) => (p.endsWith('.wasm') ? wasmUrl : p),
});

// 25 ms of events, then a pause for the page's threads, as long as the page's pacer says.
let pauseMs = PAUSE_MIN_MS;
const slicing: Slicing = {
  sliceMs: 25,
  pause: () => new Promise((resolve) => setTimeout(resolve, pauseMs)),
  now: () => performance.now(),
};

let queue: Promise<void> = Promise.resolve();

scope.onmessage = (ev: MessageEvent<SweepRequest>) => {
  const req = ev.data;
  if (req.kind === 'pace') return void (pauseMs = req.pauseMs); // at once, between slices
  queue = queue.then(async () => {
    try {
      scope.postMessage(await answerSweepRequest(await modulePromise, req, slicing, (m) => scope.postMessage(m)));
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      scope.postMessage({ id: req.id, ok: false, message });
    }
  });
};
