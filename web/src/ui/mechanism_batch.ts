// The mechanism view's batch panel: what the scheduler put into the last batch it scheduled
// (vllm v1/core/sched/output.py SchedulerOutput.num_scheduled_tokens: prefill chunks,
// decodes and draft tokens) against the token budget, with one row per scheduled request.
// Falls back to the running set's shape when no batch is in flight (the engine is idle).

import { batchParts, plural, type BatchCounts } from '../lib/batch';

export interface SnapshotBatchEntry {
  id: string; // "" when the request has finished since
  k: number; // its row in the snapshot's request list, -1 if not listed
  kind: 'new' | 'resumed' | 'running';
  tokens: number;
  prefill_tokens: number;
  spec_tokens: number;
}

export interface SnapshotBatch extends BatchCounts {
  id: number;
  entries: SnapshotBatchEntry[];
}

/** The parts of the engine snapshot the panel reads. */
export interface BatchSnapshot {
  token_budget: number;
  max_num_seqs: number;
  requests: { queue: string; phase: string; prompt_tokens: number; computed_tokens: number }[];
  batches?: SnapshotBatch[];
}

/** One sentence on the batch: its prefill chunks and decodes, their tokens, the budget. */
export function describeBatch(b: SnapshotBatch, budget: number, inFlight: number): string {
  const [prefills, decodes] = batchParts(b);
  const spec = b.spec_tokens > 0 ? `, ${b.spec_tokens} of them draft tokens` : '';
  const preempted = b.preempted > 0 ? ` Building it preempted ${plural(b.preempted, 'request')}.` : '';
  const more = inFlight > 1 ? ` ${inFlight - 1} earlier batch still running (async scheduling).` : '';
  return (
    `Last scheduled batch (#${b.id}): ${prefills!.label} (${prefills!.tokens} tokens) + ` +
    `${decodes!.label} (${decodes!.tokens} tokens${spec}) = ${b.tokens} of a budget of ${budget} tokens per step.` +
    preempted +
    more
  );
}

function segment(cls: string, tokens: number, budget: number, label: string): HTMLElement {
  const d = document.createElement('span');
  d.className = cls;
  d.style.width = `${(100 * Math.min(tokens, budget)) / Math.max(1, budget)}%`;
  d.title = label;
  return d;
}

function entriesTable(b: SnapshotBatch, swatch: (k: number) => string, hover: (k: number) => void): HTMLElement {
  const t = document.createElement('table');
  t.dataset['testid'] = 'mech-batch';
  t.innerHTML = '<thead><tr><th></th><th>request</th><th>as</th><th>tokens</th><th>prefill</th><th>draft</th></tr></thead>';
  const body = document.createElement('tbody');
  for (const e of b.entries.slice(0, 200)) {
    const tr = document.createElement('tr');
    tr.dataset['k'] = String(e.k);
    tr.dataset['phase'] = e.prefill_tokens > 0 ? 'prefill' : 'decode';
    const sw = document.createElement('td');
    if (e.k >= 0) sw.innerHTML = `<span class="mech-swatch" style="background:${swatch(e.k)}"></span>`;
    const kind = e.prefill_tokens > 0 ? `prefill chunk (${e.kind})` : 'decode';
    const cells = [e.id || '(finished)', kind, String(e.tokens), String(e.prefill_tokens), String(e.spec_tokens)];
    tr.append(sw, ...cells.map((c) => Object.assign(document.createElement('td'), { textContent: c })));
    tr.addEventListener('mouseenter', () => hover(e.k));
    tr.addEventListener('mouseleave', () => hover(-1));
    body.append(tr);
  }
  t.append(body);
  return t;
}

/** Renders the panel into `host`; `swatch` colours a request, `hover` links rows and blocks. */
export function renderBatch(
  host: HTMLElement,
  s: BatchSnapshot,
  swatch: (k: number) => string,
  hover: (k: number) => void,
): void {
  const bar = document.createElement('div');
  bar.className = 'mech-bar';
  const text = document.createElement('p');
  const running = s.requests.filter((r) => r.queue === 'running').length;
  const seqs = ` ${running} of max_num_seqs ${s.max_num_seqs} running.`;
  const batches = s.batches ?? [];
  const last = batches[batches.length - 1];
  if (last) {
    const [prefills, decodes] = batchParts(last);
    bar.append(
      segment('dec', decodes!.tokens, s.token_budget, `${decodes!.tokens} decode tokens`),
      segment('pre', prefills!.tokens, s.token_budget, `${prefills!.tokens} prefill tokens`),
    );
    text.textContent = describeBatch(last, s.token_budget, batches.length) + seqs;
    host.dataset['batch'] = String(last.id);
    const wrap = document.createElement('div');
    wrap.className = 'mech-batch';
    wrap.append(entriesTable(last, swatch, hover));
    host.replaceChildren(bar, text, wrap);
    return;
  }
  delete host.dataset['batch'];
  text.textContent = `No batch in flight (the engine is idle); budget ${s.token_budget} tokens per step.${seqs}`;
  host.replaceChildren(bar, text);
}
