// The sweep worker's logic, apart from the Worker global so tests drive it with the node
// build of the module: one request in, one answer out. Nothing here ranks or expands a grid:
// every answer comes from the C++ sweep core.

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
  sweepRank(text: string, rowsJson: string): string;
  capacitySearch(scenario: string, queryJson: string, onProbe?: (probeJson: string) => void): string;
}

/** `progress` receives the messages sent before the answer (a capacity search's probes). */
export function handleSweepRequest(blis: SweepModule, req: SweepRequest, progress?: (r: SweepResponse) => void): SweepResponse {
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
