// Summary cards above the charts: the headline numbers of summary.json. In compare mode each
// card shows A and B and B's change, coloured by whether it is better. A preset from a real
// vLLM run also shows the measured numbers beside the simulated ones.

import type { Summary } from '../protocol';
import type { Measured } from '../scenario/presets';
import { textEl } from './dom';
import { fmtCount, fmtDelta, fmtMs, fmtPct, fmtRate } from './format';

interface CardDef {
  label: string;
  value(s: Summary): number | undefined;
  fmt(v: number | undefined): string;
  sub?(s: Summary): string;
  lowerIsBetter?: boolean;
  embed?: boolean; // shown in the compact embed mode too
  /** Shown only when some run's summary passes (goodput: only with an SLO). */
  onlyWith?(s: Summary): boolean;
  testid?: string;
}

/** The SLO targets beside goodput, e.g. "TTFT ≤ 500 ms · TPOT ≤ 50 ms". */
export function sloText(s: Summary): string {
  const slo = s.slo ?? {};
  const parts: string[] = [];
  if (slo.ttft_ms !== undefined) parts.push(`TTFT ≤ ${fmtMs(slo.ttft_ms)}`);
  if (slo.itl_ms !== undefined) parts.push(`TPOT ≤ ${fmtMs(slo.itl_ms)}`);
  if (slo.e2e_ms !== undefined) parts.push(`E2E ≤ ${fmtMs(slo.e2e_ms)}`);
  if (slo.classes && Object.keys(slo.classes).length) parts.push(`classes ${Object.keys(slo.classes).join(', ')}`);
  return parts.join(' · ') || 'none';
}

/** What the links cost a run: the P/D pulls against their time alone, and the passes whose
 *  hand-offs or all-to-alls between nodes link sharing slowed (each when it happened). */
export function networkText(s: Summary): string {
  const n = s.network;
  if (!n) return '';
  const parts: string[] = [];
  if (n.kv_pulls) parts.push(`${fmtMs(n.kv_pull_alone_ms_mean)} alone, ${fmtCount(n.kv_pulls)} pulls`);
  if (n.passes_slowed) {
    let passes = `${fmtCount(n.passes_slowed)} passes slowed +${fmtMs(n.collective_extra_ms)}`;
    if (n.passes_repriced) passes += ` (${fmtCount(n.passes_repriced)} re-priced)`;
    parts.push(passes);
  }
  return parts.join(' · ');
}

const VERDICT_TEXT = { stable: 'Stable', backlogged: 'Backlogged', overloaded: 'Overloaded' } as const;

/** The saturation verdict card: stable / backlogged / overloaded and why. */
function verdictCard(runs: { label: string; summary?: Summary }[]): HTMLElement {
  const card = textEl('div', 'card verdict');
  card.dataset['testid'] = 'verdict';
  card.append(textEl('div', 'card-label', 'Saturation'));
  const shown = runs.filter((r) => r.summary?.saturation);
  if (shown.length === 0) {
    card.append(textEl('div', 'card-value', '–'));
    return card;
  }
  for (const r of shown) {
    const sat = r.summary!.saturation!;
    const v = textEl(
      'div',
      `card-value verdict-${sat.verdict}`,
      `${runs.length > 1 ? `${r.label} ` : ''}${VERDICT_TEXT[sat.verdict]}`,
    );
    v.dataset['verdict'] = sat.verdict;
    v.title = sat.reason;
    card.append(v);
  }
  if (shown.length === 1) card.append(textEl('div', 'card-sub', shown[0]!.summary!.saturation!.reason));
  return card;
}

const CARDS: CardDef[] = [
  {
    label: 'Requests finished',
    value: (s) => s.requests?.finished,
    fmt: fmtCount,
    sub: (s) => `of ${fmtCount(s.requests?.arrived)} arrived`,
  },
  {
    embed: true,
    label: 'TTFT p50',
    value: (s) => s.ttft_ms?.p50,
    fmt: fmtMs,
    sub: (s) => `p99 ${fmtMs(s.ttft_ms?.p99)}`,
    lowerIsBetter: true,
  },
  {
    embed: true,
    label: 'ITL p50',
    value: (s) => s.itl_ms?.p50,
    fmt: fmtMs,
    sub: (s) => `p99 ${fmtMs(s.itl_ms?.p99)}`,
    lowerIsBetter: true,
  },
  {
    embed: true,
    label: 'E2E p50',
    value: (s) => s.e2e_ms?.p50,
    fmt: fmtMs,
    sub: (s) => `p99 ${fmtMs(s.e2e_ms?.p99)}`,
    lowerIsBetter: true,
  },
  {
    embed: true,
    label: 'Output throughput',
    value: (s) => s.throughput?.output_tokens_per_s,
    fmt: (v) => fmtRate(v, 'tok/s'),
    sub: (s) => fmtRate(s.throughput?.requests_per_s, 'req/s'),
  },
  {
    label: 'Goodput',
    value: (s) => s.goodput_requests_per_s ?? undefined,
    fmt: (v) => fmtRate(v, 'req/s'),
    sub: (s) => `meeting the SLO: ${sloText(s)}`,
    onlyWith: (s) => typeof s.goodput_requests_per_s === 'number',
  },
  { embed: true, label: 'Preemptions', value: (s) => s.preemptions, fmt: fmtCount, lowerIsBetter: true },
  { embed: true, label: 'Prefix cache hits', value: (s) => s.prefix_cache_hit_rate, fmt: fmtPct, sub: () => 'of prompt tokens' },
  {
    label: 'KV pull time',
    value: (s) => (s.network?.kv_pulls ? s.network.kv_pull_ms_mean : undefined),
    fmt: fmtMs,
    sub: networkText,
    lowerIsBetter: true,
    onlyWith: (s) => s.network !== undefined,
    testid: 'card-network',
  },
  {
    label: 'KV usage',
    value: (s) => s.kv_usage?.mean,
    fmt: fmtPct,
    sub: (s) => `max ${fmtPct(s.kv_usage?.max)}`,
    lowerIsBetter: true,
  },
];

/** The models priced without a calibration run on their GPU (summary provenance, whose
 *  catalog lines read "model ID (origin); estimate: no calibration run covers it on GPU"). */
export function estimateNotes(s: Summary | undefined): string[] {
  const prov = s?.['provenance'] as { catalog?: unknown } | undefined;
  const lines = Array.isArray(prov?.catalog) ? prov.catalog.filter((x): x is string => typeof x === 'string') : [];
  const out: string[] = [];
  for (const line of lines) {
    const m = /^model (\S+).*; estimate: no calibration run covers it on (\S+)$/.exec(line);
    if (m) out.push(`${m[1]!} on ${m[2]!}`);
  }
  return out;
}

export function renderCards(
  host: HTMLElement,
  runs: { label: string; summary?: Summary }[],
  measured?: Measured,
  compact = false,
): void {
  const frag = document.createDocumentFragment();
  const withSummary = runs.filter((r) => r.summary);
  frag.append(verdictCard(runs));
  for (const def of compact ? CARDS.filter((c) => c.embed) : CARDS) {
    if (def.onlyWith && !withSummary.some((r) => def.onlyWith!(r.summary!))) continue;
    const card = textEl('div', 'card');
    if (def.testid) card.dataset['testid'] = def.testid;
    card.append(textEl('div', 'card-label', def.label));
    if (runs.length <= 1) {
      const s = runs[0]?.summary ?? {};
      card.append(textEl('div', 'card-value', def.fmt(def.value(s))));
      if (def.sub && runs[0]?.summary) card.append(textEl('div', 'card-sub', def.sub(s)));
    } else {
      const rows = textEl('div', 'card-rows');
      const a = runs[0]?.summary ? def.value(runs[0].summary) : undefined;
      runs.forEach((r) => {
        const v = r.summary ? def.value(r.summary) : undefined;
        rows.append(textEl('span', 'slot', r.label), textEl('span', 'val', def.fmt(v)));
        const d = r === runs[0] ? '' : fmtDelta(a, v);
        const delta = textEl('span', 'delta', d);
        if (d && def.lowerIsBetter !== undefined && a !== undefined && v !== undefined && a !== v) {
          const better = def.lowerIsBetter ? v < a : v > a;
          delta.classList.add(better ? 'better' : 'worse');
        }
        rows.append(delta);
      });
      card.append(rows);
    }
    frag.append(card);
  }
  if (measured && !compact) {
    const card = textEl('div', 'card measured');
    card.title = measured.source;
    card.dataset['testid'] = 'measured';
    // Like with like: each measured figure beside the simulated figure of the same definition
    // (TPOT mean against TPOT mean, not against ITL p50).
    const sim = runs[0]?.summary;
    card.append(textEl('div', 'card-label', 'Real vLLM vs simulated'));
    const rows = textEl('div', 'card-rows measured-rows');
    const row = (name: string, real: number | undefined, simulated: number | undefined) => {
      rows.append(
        textEl('span', 'slot', name),
        textEl('span', 'val', `${fmtMs(real)} / ${fmtMs(simulated)}`),
        textEl('span', 'delta', sim ? fmtDelta(real, simulated) : ''),
      );
    };
    row('TTFT p50', measured.ttftMs.p50, sim?.ttft_ms?.p50);
    row('E2E p50', measured.e2eMs.p50, sim?.e2e_ms?.p50);
    row('TPOT mean', measured.tpotMs.mean, sim?.tpot_ms?.mean);
    card.append(rows);
    card.append(textEl('div', 'card-sub', 'measured / simulated'));
    frag.append(card);
  }
  const estimates = [...new Set(runs.flatMap((r) => estimateNotes(r.summary)))];
  if (estimates.length > 0) {
    const note = textEl(
      'p',
      'estimate-note',
      `Estimates: no calibration run covers ${estimates.join(', ')}, so the step times ` +
        'come from the latency kernel’s physical terms alone.',
    );
    note.dataset['testid'] = 'estimate-note';
    frag.append(note);
  }
  host.replaceChildren(frag);
  host.dataset['ready'] = withSummary.length > 0 ? '1' : '0';
}
