// The export rows under the charts: per shown run, summary.json, timeseries.json,
// requests.csv, one instance's or every instance's Prometheus text (a zip), and a Perfetto
// trace of the engine steps and requests per instance. The same files `blis run --out DIR`
// writes (the trace aside), named after the scenario.

import { runTrace, type StepTrace } from '../lib/trace';
import { zipFiles } from '../lib/zip';
import type { ExportKind, SlotId } from '../protocol';
import { download, downloadBytes, mimeFor } from '../ui/download';
import type { Run } from './run';

type What = ExportKind | 'metrics-all' | 'trace';

/** Renders the rows; returns the refreshers of the instance pickers (call on run changes). */
export function renderExportRows(
  host: HTMLElement,
  slots: SlotId[],
  runs: Record<SlotId, Run>,
  compare: boolean,
): (() => void)[] {
  host.replaceChildren();
  const fills: (() => void)[] = [];
  for (const slot of slots) {
    const row = document.createElement('div');
    row.className = 'export-row';
    if (compare) {
      const s = document.createElement('span');
      s.className = 'slot';
      s.textContent = slot.toUpperCase();
      row.append(s);
    }
    const button = (label: string, what: What, instSel?: HTMLSelectElement) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'btn btn-small';
      b.textContent = label;
      b.dataset['testid'] = `export-${what}${slot === 'b' ? '-b' : ''}`;
      b.addEventListener('click', () => void exportFiles(runs[slot], what, instSel ? Number(instSel.value) : undefined));
      return b;
    };
    const sel = document.createElement('select');
    sel.setAttribute('aria-label', `Instance for the Prometheus export${compare ? ` of ${slot.toUpperCase()}` : ''}`);
    sel.dataset['testid'] = `export-instance${slot === 'b' ? '-b' : ''}`;
    const fill = () => {
      const names = runs[slot].instances;
      if (sel.options.length === names.length && names.every((n, i) => sel.options[i]!.text === n)) return;
      sel.replaceChildren(...names.map((n, i) => new Option(n, String(i))));
    };
    fills.push(fill);
    fill();
    row.append(
      button('summary.json', 'summary'),
      button('timeseries.json', 'timeseries'),
      button('requests.csv', 'requests'),
      button('metrics.prom', 'metrics', sel),
      sel,
      button('all .prom (zip)', 'metrics-all'),
      button('trace.json (Perfetto)', 'trace'),
    );
    host.append(row);
  }
  return fills;
}

async function exportFiles(run: Run, what: What, instance?: number): Promise<void> {
  if (!run.active) return;
  if (what === 'trace') {
    // Engine steps and request spans per instance, for ui.perfetto.dev (lib/trace.ts).
    const [csv] = await run.export('requests');
    const [steps] = await run.export('steps');
    if (!csv) return;
    const trace = runTrace(csv.text, steps ? (JSON.parse(steps.text) as StepTrace) : undefined);
    download(csv.name.replace(/-requests\.csv$/, '-trace.json'), trace, 'application/json');
    return;
  }
  if (what === 'metrics-all') {
    // Every instance's scrape in one archive (a Prometheus scrape is per instance).
    const files = await run.export('metrics');
    if (files.length === 0) return;
    const base = files[0]!.name.replace(/-[^-]+-\d+\.prom$/, '');
    downloadBytes(`${base}-metrics.zip`, zipFiles(files), 'application/zip');
    return;
  }
  for (const f of await run.export(what, instance)) download(f.name, f.text, mimeFor(f.name));
}
