// Time-series column names as the simulator reports them (core/cluster/simulation.cpp):
// `time_s` first, then per-instance columns `<instance>.<metric>` (e.g. `main-0.kv_usage`)
// and cluster-wide columns `<metric>` (e.g. `ttft_p99_ms`). Units are in the metric's suffix.

export interface ColumnName {
  metric: string;
  instance?: string;
}

export function parseColumn(name: string): ColumnName {
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return { metric: name };
  return { metric: name.slice(dot + 1), instance: name.slice(0, dot) };
}

export function instanceColumn(instance: string, metric: string): string {
  return `${instance}.${metric}`;
}

/** Column names of one metric, one per instance, in the order of `instances`. */
export function perInstance(columns: readonly string[], metric: string, instances: readonly string[]): string[] {
  return instances.map((i) => instanceColumn(i, metric)).filter((c) => columns.includes(c));
}

export const TIME_COLUMN = 'time_s';
export const THROUGHPUT_COLUMN = 'throughput_tokens_per_s';
