// A Chrome / Perfetto trace (JSON "traceEvents", open it in ui.perfetto.dev) of a run: one
// process per instance. Its engine steps (from stepTrace: each batch from the event that
// scheduled it to the one that applied its output, with the batch's size and tokens) on two
// "engine steps" threads (with async scheduling two batches are in flight, so consecutive
// batches alternate threads and never overlap on one), and its requests from requests.csv,
// each a slice from arrival to finish with a nested "until first token" slice, packed onto as
// few request lanes as overlap allows.

import { batchParts, type BatchCounts } from './batch';
import { parseCsv } from './csv';

interface TraceEvent {
  name: string;
  ph: 'X' | 'M';
  pid: number;
  tid: number;
  ts?: number;
  dur?: number;
  cat?: string;
  args?: Record<string, string | number | boolean>;
}

/** One engine step as stepTrace reports it (times in simulated µs). */
export interface TraceStep extends BatchCounts {
  instance: number;
  id: number;
  start_us: number;
  end_us: number;
  requests: number;
}

export interface StepTrace {
  instances: string[];
  steps: TraceStep[];
  truncated: boolean;
}

/** Step threads sit after the request lanes' range, so their ids never collide. */
const STEP_TID = 1_000_000;

class Processes {
  readonly events: TraceEvent[] = [];
  private readonly pids = new Map<string, number>();

  pid(name: string): number {
    let pid = this.pids.get(name);
    if (pid === undefined) {
      pid = this.pids.size + 1;
      this.pids.set(name, pid);
      this.events.push({ name: 'process_name', ph: 'M', pid, tid: 0, args: { name } });
    }
    return pid;
  }
}

function stepName(s: TraceStep): string {
  const parts = batchParts(s)
    .filter((p) => p.count > 0)
    .map((p) => p.label);
  return `step ${s.id}: ${parts.join(' + ') || 'empty'} (${s.tokens} tok)`;
}

function addSteps(procs: Processes, trace: StepTrace): void {
  const named = new Set<string>();
  for (const s of trace.steps) {
    const pid = procs.pid(trace.instances[s.instance] ?? `instance ${s.instance}`);
    const tid = STEP_TID + (s.id % 2);
    if (!named.has(`${pid}.${tid}`)) {
      named.add(`${pid}.${tid}`);
      procs.events.push({ name: 'thread_name', ph: 'M', pid, tid, args: { name: `engine steps ${(s.id % 2) + 1}` } });
    }
    const { requests, tokens, prefill_tokens, prefills, decodes, spec_tokens, preempted } = s;
    const args = { batch_size: requests, tokens, prefill_tokens, prefills, decodes, spec_tokens, preempted };
    const dur = Math.max(0, s.end_us - s.start_us);
    procs.events.push({
      name: stepName(s),
      cat: 'step',
      ph: 'X',
      pid,
      tid,
      ts: s.start_us,
      dur,
      args: { ...args, step_us: dur },
    });
  }
}

function addRequests(procs: Processes, csv: string): void {
  const rows = parseCsv(csv);
  const h = rows[0] ?? [];
  const col = (n: string) => h.indexOf(n);
  const [id, client, inst, arr, first, fin, status] = [
    'id',
    'client',
    'instance',
    'arrival_s',
    'first_token_s',
    'finish_s',
    'status',
  ].map(col);
  if ([id, inst, arr, fin].some((i) => i === undefined || i < 0))
    throw new Error('requests.csv lacks id, instance, arrival_s or finish_s');
  const lanes = new Map<number, number[]>(); // pid -> end time (µs) of each lane
  const us = (s: string | undefined) => Math.round(Number(s) * 1e6);
  const body = rows.slice(1).sort((a, b) => us(a[arr!]) - us(b[arr!]));
  for (const r of body) {
    const pid = procs.pid(r[inst!] ?? '?');
    const start = us(r[arr!]);
    const end = Math.max(start, us(r[fin!]));
    const ends = lanes.get(pid) ?? [];
    let lane = ends.findIndex((e) => e <= start);
    if (lane < 0) lane = ends.push(end) - 1;
    else ends[lane] = end;
    lanes.set(pid, ends);
    const args = { client: r[client!] ?? '', status: r[status!] ?? '' };
    procs.events.push({
      name: `request ${r[id!]}`,
      cat: 'request',
      ph: 'X',
      pid,
      tid: lane + 1,
      ts: start,
      dur: end - start,
      args,
    });
    const f = r[first!];
    if (f) {
      const dur = Math.max(0, us(f) - start);
      procs.events.push({ name: 'until first token', cat: 'ttft', ph: 'X', pid, tid: lane + 1, ts: start, dur });
    }
  }
}

/** The trace of a run: its requests (requests.csv) and, when given, its engine steps. */
export function runTrace(csv: string, steps?: StepTrace): string {
  const procs = new Processes();
  // Instances in the simulator's order, so the processes read main-0, main-1, ...
  for (const name of steps?.instances ?? []) procs.pid(name);
  if (steps) addSteps(procs, steps);
  addRequests(procs, csv);
  const metadata = steps?.truncated ? { note: `engine steps after the first ${steps.steps.length} are not included` } : {};
  return JSON.stringify({ traceEvents: procs.events, displayTimeUnit: 'ms', metadata });
}
