// A Chrome / Perfetto trace (JSON "traceEvents", open it in ui.perfetto.dev) of a run's
// requests from requests.csv: one process per instance, each request a slice from arrival to
// finish with a nested "waiting for first token" slice, packed onto as few threads (lanes) as
// overlap allows. Request-level, not engine steps: the steps are not in requests.csv.

import { parseCsv } from './csv';

interface TraceEvent {
  name: string;
  ph: 'X' | 'M';
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  cat?: string;
  args?: Record<string, string | number>;
}

export function requestsTrace(csv: string): string {
  const rows = parseCsv(csv);
  const h = rows[0] ?? [];
  const col = (n: string) => h.indexOf(n);
  const [id, client, inst, arr, first, fin, status] = ['id', 'client', 'instance', 'arrival_s', 'first_token_s', 'finish_s', 'status'].map(col);
  if ([id, inst, arr, fin].some((i) => i === undefined || i < 0)) throw new Error('requests.csv lacks id, instance, arrival_s or finish_s');
  const pids = new Map<string, number>();
  const lanes = new Map<number, number[]>();  // pid -> end time (µs) of each lane
  const events: TraceEvent[] = [];
  const us = (s: string | undefined) => Math.round(Number(s) * 1e6);
  const body = rows.slice(1).sort((a, b) => us(a[arr!]) - us(b[arr!]));
  for (const r of body) {
    const name = r[inst!] ?? '?';
    if (!pids.has(name)) {
      pids.set(name, pids.size + 1);
      events.push({ name: 'process_name', ph: 'M', pid: pids.get(name)!, tid: 0, args: { name } });
    }
    const pid = pids.get(name)!;
    const start = us(r[arr!]), end = Math.max(start, us(r[fin!]));
    const ends = lanes.get(pid) ?? [];
    let lane = ends.findIndex((e) => e <= start);
    if (lane < 0) lane = ends.push(end) - 1;
    else ends[lane] = end;
    lanes.set(pid, ends);
    const args: Record<string, string | number> = { client: r[client!] ?? '', status: r[status!] ?? '' };
    events.push({ name: `request ${r[id!]}`, cat: 'request', ph: 'X', pid, tid: lane + 1, ts: start, dur: end - start, args });
    const f = r[first!];
    if (f) events.push({ name: 'until first token', cat: 'ttft', ph: 'X', pid, tid: lane + 1, ts: start, dur: Math.max(0, us(f) - start) });
  }
  return JSON.stringify({ traceEvents: events, displayTimeUnit: 'ms' });
}
