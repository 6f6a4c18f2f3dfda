// Summary cards above the charts: the headline numbers of summary.json. In compare mode each
// card shows A and B and B's change, coloured by whether it is better. A preset from a real
// vLLM run also shows the measured numbers beside the simulated ones.

import type { Summary } from '../protocol';
import type { Measured } from '../scenario/presets';
import { fmtCount, fmtDelta, fmtMs, fmtPct, fmtRate } from './format';

interface CardDef {
  label: string;
  value(s: Summary): number | undefined;
  fmt(v: number | undefined): string;
  sub?(s: Summary): string;
  lowerIsBetter?: boolean;
  embed?: boolean;  // shown in the compact embed mode too
}

const CARDS: CardDef[] = [
  {
    label: 'Requests finished',
    value: (s) => s.requests?.finished,
    fmt: fmtCount,
    sub: (s) => `of ${fmtCount(s.requests?.arrived)} arrived`,
  },
  { embed: true, label: 'TTFT p50', value: (s) => s.ttft_ms?.p50, fmt: fmtMs, sub: (s) => `p99 ${fmtMs(s.ttft_ms?.p99)}`, lowerIsBetter: true },
  { embed: true, label: 'ITL p50', value: (s) => s.itl_ms?.p50, fmt: fmtMs, sub: (s) => `p99 ${fmtMs(s.itl_ms?.p99)}`, lowerIsBetter: true },
  { embed: true, label: 'E2E p50', value: (s) => s.e2e_ms?.p50, fmt: fmtMs, sub: (s) => `p99 ${fmtMs(s.e2e_ms?.p99)}`, lowerIsBetter: true },
  {
    label: 'Output throughput',
    value: (s) => s.throughput?.output_tokens_per_s,
    fmt: (v) => fmtRate(v, 'tok/s'),
    sub: (s) => fmtRate(s.throughput?.requests_per_s, 'req/s'),
  },
  {
    label: 'Goodput',
    value: (s) => s.goodput_requests_per_s,
    fmt: (v) => fmtRate(v, 'req/s'),
    sub: () => 'meeting every SLO',
  },
  { embed: true, label: 'Preemptions', value: (s) => s.preemptions, fmt: fmtCount, lowerIsBetter: true },
  { embed: true, label: 'Prefix cache hits', value: (s) => s.prefix_cache_hit_rate, fmt: fmtPct, sub: () => 'of prompt tokens' },
  { label: 'KV usage', value: (s) => s.kv_usage?.mean, fmt: fmtPct, sub: (s) => `max ${fmtPct(s.kv_usage?.max)}`, lowerIsBetter: true },
];

function el(tag: string, cls: string, text?: string): HTMLElement {
  const e = document.createElement(tag);
  e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

export function renderCards(host: HTMLElement, runs: { label: string; summary?: Summary }[], measured?: Measured, compact = false): void {
  const frag = document.createDocumentFragment();
  const withSummary = runs.filter((r) => r.summary);
  for (const def of compact ? CARDS.filter((c) => c.embed) : CARDS) {
    const card = el('div', 'card');
    card.append(el('div', 'card-label', def.label));
    if (runs.length <= 1) {
      const s = runs[0]?.summary ?? {};
      card.append(el('div', 'card-value', def.fmt(def.value(s))));
      if (def.sub && runs[0]?.summary) card.append(el('div', 'card-sub', def.sub(s)));
    } else {
      const rows = el('div', 'card-rows');
      const a = runs[0]?.summary ? def.value(runs[0].summary) : undefined;
      runs.forEach((r) => {
        const v = r.summary ? def.value(r.summary) : undefined;
        rows.append(el('span', 'slot', r.label), el('span', 'val', def.fmt(v)));
        const d = r === runs[0] ? '' : fmtDelta(a, v);
        const delta = el('span', 'delta', d);
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
    const card = el('div', 'card measured');
    card.title = measured.source;
    card.append(el('div', 'card-label', 'Measured on real vLLM'));
    card.append(el('div', 'card-value', `TTFT p50 ${fmtMs(measured.ttftMs.p50)}`));
    card.append(el('div', 'card-sub', `E2E p50 ${fmtMs(measured.e2eMs.p50)} · TPOT ${fmtMs(measured.tpotMs.mean)}`));
    frag.append(card);
  }
  host.replaceChildren(frag);
  host.dataset['ready'] = withSummary.length > 0 ? '1' : '0';
}
