// The sweep worker's logic, apart from the Worker global so tests drive it with the node
// build of the module: one request in, one answer out. Nothing here ranks or expands a grid:
// every answer comes from the C++ sweep core.
//
// A point runs in slices on a Simulation, with a pause between slices: with one worker per
// core every core is busy running points, and the page's main thread (and the compositor)
// would wait for a core at every frame; a pause now and then hands a core back. The pauses
// change only when events are processed, never which: the row is the one sweepRunPoint gives.

import type { BlisSimulation } from '../wasm/blis.d.mts';
import type { Diagnostic } from '../protocol';
import type { SweepRequest, SweepResponse } from './protocol';

/** The sweep functions of the Embind module (web/src/wasm/blis.d.mts). */
export interface SweepModule {
  sweepCheck(text: string): {
    diagnostics: Diagnostic[];
    points: number;
    document: string;
  };
  sweepPointScenario(text: string, index: number): string;
  sweepRunPoint(text: string, index: number): string;
  sweepPointRow(text: string, index: number, summaryJson: string): string;
  Simulation: { new (): Pick<BlisSimulation, 'load' | 'advance' | 'done' | 'summaryJson' | 'delete'> };
  sweepRank(text: string, rowsJson: string): string;
  capacitySearch(scenario: string, queryJson: string, onProbe?: (probeJson: string) => void): string;
}

/** `progress` receives the messages sent before the answer (a capacity search's probes). */
export function handleSweepRequest(
  blis: SweepModule,
  req: Exclude<SweepRequest, { kind: 'pace' }>,
  progress?: (r: SweepResponse) => void,
): SweepResponse {
  try {
    switch (req.kind) {
      case 'check':
        return {
          id: req.id,
          ok: true,
          kind: 'check',
          check: blis.sweepCheck(req.text),
        };
      case 'run':
        return text(req.id, blis.sweepRunPoint(req.text, req.index));
      case 'rank':
        return text(req.id, blis.sweepRank(req.text, req.rows));
      case 'scenario':
        return text(req.id, blis.sweepPointScenario(req.text, req.index));
      case 'capacity':
        return text(
          req.id,
          progress
            ? blis.capacitySearch(req.scenario, req.query, (t) => progress({ id: req.id, ok: true, kind: 'probe', text: t }))
            : blis.capacitySearch(req.scenario, req.query),
        );
    }
  } catch (e) {
    return {
      id: req.id,
      ok: false,
      message: e instanceof Error ? e.message : String(e),
    };
  }
}

function text(id: number, t: string): SweepResponse {
  return { id, ok: true, kind: 'text', text: t };
}

/** How a worker shares its core: run `sliceMs` of events, then `pause()`. */
export interface Slicing {
  sliceMs: number;
  pause: () => Promise<void>;
  now: () => number;
}

/** Events per advance call between clock reads (a few ms of work). */
const EVENTS_PER_CALL = 2000;
const END_OF_TIME_US = Number.MAX_SAFE_INTEGER;

/** Point `index` run to the end in slices; its points.jsonl row as JSON text. */
export async function runPointInSlices(blis: SweepModule, doc: string, index: number, s: Slicing): Promise<string> {
  const scenario = blis.sweepPointScenario(doc, index);
  const sim = new blis.Simulation();
  try {
    const errors = sim.load(scenario).filter((d) => d.severity === 'error');
    if (errors.length) {
      throw new Error(`point ${index} cannot run: ${errors.map((d) => `${d.pointer}: ${d.message}`).join('; ')}`);
    }
    let start = s.now();
    while (!sim.done()) {
      sim.advance(END_OF_TIME_US, EVENTS_PER_CALL);
      if (s.now() - start >= s.sliceMs) {
        await s.pause();
        start = s.now();
      }
    }
    return blis.sweepPointRow(doc, index, sim.summaryJson());
  } finally {
    sim.delete();
  }
}

/** The worker's answer to a request: a run in slices, everything else at once. */
export async function answerSweepRequest(
  blis: SweepModule,
  req: SweepRequest,
  slicing: Slicing,
  progress?: (r: SweepResponse) => void,
): Promise<SweepResponse> {
  if (req.kind === 'pace') throw new Error('pace is not a request with an answer');
  if (req.kind !== 'run') return handleSweepRequest(blis, req, progress);
  try {
    return text(req.id, await runPointInSlices(blis, req.text, req.index, slicing));
  } catch (e) {
    return { id: req.id, ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}
