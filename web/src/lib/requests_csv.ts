// Per-request latencies from requests.csv (one row per request: arrival, first token,
// finish, token counts, ...), for the latency CDF drawn at the end of a run. Columns are
// found by name; their unit is read from the suffix (_us, _ms, _s).

import type { RunLatencies } from '../protocol';
import { parseCsv } from './csv';

function unitToMs(header: string): number {
  if (header.endsWith('_us')) return 1e-3;
  if (header.endsWith('_ms')) return 1;
  if (header.endsWith('_s')) return 1e3;
  throw new Error(`requests.csv column '${header}' has no unit suffix (_us, _ms or _s)`);
}

function findColumn(headers: string[], stem: string): number {
  const i = headers.findIndex((h) => h === stem || h.startsWith(stem + '_'));
  if (i < 0) throw new Error(`requests.csv has no '${stem}' column (columns: ${headers.join(', ')})`);
  return i;
}

export function latenciesFromCsv(csv: string): RunLatencies {
  const lines = parseCsv(csv);
  const headers = (lines[0] ?? []).map((h) => h.trim());
  const arrival = findColumn(headers, 'arrival');
  const first = findColumn(headers, 'first_token');
  const finish = findColumn(headers, 'finish');
  const outTok = findColumn(headers, 'output_tokens');
  const status = headers.indexOf('status'); // "finished" | "aborted" | "rejected" when present
  const scale = [arrival, first, finish].map((i) => unitToMs(headers[i]!));
  const ttft: number[] = [];
  const e2e: number[] = [];
  const itl: number[] = [];
  for (let r = 1; r < lines.length; r++) {
    const cells = lines[r]!;
    if (status >= 0 && cells[status] !== 'finished') continue;
    const a = Number(cells[arrival]) * scale[0]!;
    const f = cells[first] === '' ? NaN : Number(cells[first]) * scale[1]!;
    const e = cells[finish] === '' ? NaN : Number(cells[finish]) * scale[2]!;
    const n = Number(cells[outTok]);
    if (!Number.isFinite(f) || !Number.isFinite(e)) continue; // not finished
    ttft.push(f - a);
    e2e.push(e - a);
    if (n > 1) itl.push((e - f) / (n - 1));
  }
  return { ttftMs: Float64Array.from(ttft), e2eMs: Float64Array.from(e2e), itlMs: Float64Array.from(itl) };
}
