// Time-series column names as the WASM module reports them: `time_s` first, then
// per-instance columns `metric[instance]` (e.g. `kv_usage[main-0]`) and cluster-wide
// columns `metric` (e.g. `ttft_p99_ms`). The unit is in the metric's suffix.

export interface ColumnName {
  metric: string;
  instance?: string;
}

export function parseColumn(name: string): ColumnName {
  const m = /^([A-Za-z0-9_]+)\[(.+)\]$/.exec(name);
  if (m) return { metric: m[1]!, instance: m[2]! };
  return { metric: name };
}

/** Column names of one metric, one per instance, in the order of `instances`. */
export function perInstance(columns: readonly string[], metric: string, instances: readonly string[]): string[] {
  return instances.map((i) => `${metric}[${i}]`).filter((c) => columns.includes(c));
}

export const TIME_COLUMN = 'time_s';
