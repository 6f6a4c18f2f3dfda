// The chart area: vLLM's Grafana-dashboard charts of the shown runs (KV usage, running and
// waiting, latency, throughput, the dashboard's other panels, per-instance heat maps) and the
// latency CDF at the end. Redraws only when rows were added or a run changed state, and at
// most every 100 ms while playing (10 updates a second read as smooth and leave the frame
// budget free).

import { ChartPanel } from '../charts/chart_panel';
import { PANELS, panelApplies, type PanelDef } from '../charts/grafana_views';
import { HeatMapPanel } from '../charts/heatmap';
import { cdfView, kvView, latencyView, queueView, throughputView, type InstanceMode, type RunData } from '../charts/views';
import { $as } from './dom';
import type { Run } from './run';

export type InstanceChoice = InstanceMode | 'heat' | 'auto';

const MAX_POINTS = 1600;
const PLAYING_REDRAW_MS = 100;

type MainChart = 'kv' | 'queue' | 'latency' | 'throughput' | 'cdf';

export class ChartBoard {
  private readonly charts: Record<MainChart, ChartPanel>;
  private readonly panels: { def: PanelDef; chart: ChartPanel }[];
  private readonly heat: HeatMapPanel[];
  private instanceMode: InstanceChoice = 'auto';
  private stateKey = '';
  private rowsKey = '';
  private lastDrawAt = 0;

  constructor(host: HTMLElement, compact: boolean) {
    // Embed mode (docs pages) has less room: shorter plots.
    const h = compact ? 140 : 190;
    const waiting = 'Press play to start the simulation';
    const chart = (title: string, subtitle: string, id: string, empty = waiting) =>
      new ChartPanel(host, { title, subtitle, testid: `chart-${id}`, height: h, empty });
    this.charts = {
      kv: chart('KV cache usage', 'vllm:kv_cache_usage_perc', 'kv'),
      queue: chart('Running and waiting', 'vllm:num_requests_running, vllm:num_requests_waiting', 'queue'),
      latency: chart(
        'Latency over time',
        'TTFT (left) and ITL (right), p50/p99 per tumbling window',
        'latency',
        'Latencies appear as requests finish',
      ),
      throughput: chart('Throughput', 'vllm:generation_tokens_total, per second', 'throughput'),
      cdf: new ChartPanel(host, {
        title: 'Latency distribution',
        subtitle: 'per request, at the end of the run',
        testid: 'chart-cdf',
        empty: 'Shown when the run is done',
        height: 220,
        synced: false,
      }),
    };
    // The rest of vLLM's Grafana dashboard (not in embeds, which have less room).
    this.panels = PANELS.map((def) => ({ def, chart: chart(def.title, def.subtitle, def.id) }));
    for (const p of this.panels) p.chart.el.classList.add('grafana');
    // Heat maps replace the KV and queue lines in the heat-map view (many instances).
    this.heat = [
      new HeatMapPanel(host, 'KV cache usage per instance', 'vllm:kv_cache_usage_perc, heat map', 'heat-kv', 'kv_usage', 100),
      new HeatMapPanel(host, 'Waiting per instance', 'vllm:num_requests_waiting, heat map', 'heat-waiting', 'waiting'),
    ];
    for (const m of this.heat) {
      host.insertBefore(m.el, this.charts.latency.el);
      m.el.hidden = true;
    }
    this.charts.cdf.el.classList.add('full');
    this.charts.cdf.el.hidden = true;
  }

  /** Per-instance charts: per pool, each instance, a heat map, or chosen by instance count. */
  setInstanceMode(mode: InstanceChoice): void {
    this.instanceMode = mode;
    this.stateKey = '';
  }

  setLatencyWindow(label: string): void {
    this.charts.latency.setSubtitle(`TTFT (left) and ITL (right), p50/p99 per tumbling ${label} window`);
  }

  hideCdf(): void {
    this.charts.cdf.el.hidden = true;
  }

  /** Redraws when the runs changed enough (see the file comment); `t` is the frame time. */
  update(runs: Run[], compare: boolean, embed: boolean, playing: boolean, t: number): void {
    const stateKey = `${compare}|${runs.map((r) => `${r.slot}${r.gen}.${r.status}.${r.latencies ? 1 : 0}`).join('|')}`;
    const rowsKey = runs.map((r) => r.store.length).join('|');
    const due = !playing || t - this.lastDrawAt >= PLAYING_REDRAW_MS;
    if (stateKey === this.stateKey && (rowsKey === this.rowsKey || !due)) return;
    this.stateKey = stateKey;
    this.rowsKey = rowsKey;
    this.lastDrawAt = t;
    this.draw(runs, compare, embed);
  }

  private draw(runs: Run[], compare: boolean, embed: boolean): void {
    const data: RunData[] = runs
      .filter((r) => r.active)
      .map((r) => ({
        label: compare ? r.slot.toUpperCase() : '',
        columns: r.columns,
        instances: r.instances,
        column: (name: string) => r.store.column(name),
        ...(r.latencies ? { latencies: r.latencies } : {}),
      }));
    if (data.length === 0) {
      for (const c of Object.values(this.charts)) c.clear();
      for (const p of this.panels) p.chart.clear();
      this.charts.cdf.el.hidden = true;
      return;
    }
    this.drawInstanceCharts(data, embed);
    const slo = runs[0]?.summary?.slo ?? {};
    const l = latencyView(data, MAX_POINTS, {
      ...(slo.ttft_ms !== undefined ? { ttftMs: slo.ttft_ms } : {}),
      ...(slo.itl_ms !== undefined ? { itlMs: slo.itl_ms } : {}),
    });
    this.charts.latency.draw(l.spec, l.data);
    for (const p of this.panels) {
      const applies = !embed && panelApplies(p.def, data);
      p.chart.el.hidden = !applies;
      if (!applies) continue;
      const v = p.def.view(data, MAX_POINTS, slo.e2e_ms !== undefined ? { e2eMs: slo.e2e_ms } : {});
      p.chart.draw(v.spec, v.data);
    }
    const th = throughputView(data, MAX_POINTS);
    this.charts.throughput.draw(th.spec, th.data);
    const cdf = runs.every((r) => r.done) ? cdfView(data) : undefined;
    this.charts.cdf.el.hidden = !cdf;
    if (cdf) this.charts.cdf.draw(cdf.spec, cdf.data);
  }

  /** KV and queue charts: lines per instance or pool, or heat maps (one run). */
  private drawInstanceCharts(data: RunData[], embed: boolean): void {
    // Many instances read better as one line per pool (P/D prefill and decode apart).
    const auto = data[0]!.instances.length > 4 ? 'pool' : 'instance';
    const chosen = this.instanceMode !== 'auto' ? this.instanceMode : auto;
    $as<HTMLSelectElement>('instance-mode').value = chosen;
    const heat = chosen === 'heat' && data.length === 1 && !embed;
    const mode: InstanceMode = chosen === 'heat' ? 'instance' : chosen;
    this.charts.kv.el.hidden = heat;
    this.charts.queue.el.hidden = heat;
    for (const m of this.heat) {
      m.el.hidden = !heat;
      if (heat) m.draw(data[0]!);
    }
    const kv = kvView(data, MAX_POINTS, mode);
    this.charts.kv.draw(kv.spec, kv.data);
    const q = queueView(data, MAX_POINTS, mode);
    this.charts.queue.draw(q.spec, q.data);
  }
}
