// Number formatting for cards, legends and axes: short, with units.

export function fmtMs(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms >= 10000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

export function fmtCount(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return '–';
  if (Math.abs(n) >= 1e6) return `${(n / 1e6).toFixed(2)} M`;
  if (Math.abs(n) >= 1e4) return `${(n / 1e3).toFixed(1)} k`;
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}

export function fmtRate(n: number | undefined, unit: string): string {
  if (n === undefined || !Number.isFinite(n)) return '–';
  return `${fmtCount(Math.abs(n) >= 100 ? Math.round(n) : Math.round(n * 10) / 10)} ${unit}`;
}

export function fmtPct(frac: number | undefined): string {
  if (frac === undefined || !Number.isFinite(frac)) return '–';
  return `${(frac * 100).toFixed(frac < 0.1 ? 1 : 0)}%`;
}

/** Simulated time as seconds with millisecond precision: "12.345". */
export function fmtSimSeconds(us: number): string {
  return (us / 1e6).toFixed(3);
}

/** Relative change B vs A as "+12%" / "−8%"; empty when undefined or A is 0. */
export function fmtDelta(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || a === 0) return '';
  const d = (b - a) / Math.abs(a);
  const pct = Math.round(d * 100);
  if (pct === 0) return '±0%';
  return `${pct > 0 ? '+' : '−'}${Math.abs(pct)}%`;
}
