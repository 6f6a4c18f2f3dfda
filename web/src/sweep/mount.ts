// The sweep view's one hook into the page: a "Sweep" button in the top bar that swaps the
// playground's main area for the sweep view, sweep workers started on first use (one per
// core, at most 8), and the sweep kept in the URL's hash while the view is open. Also the
// capacity search in the scenario panel, with a worker of its own (its Cancel stops only it).

import './sweep.css';
import { CapacityPanel } from './capacity_panel';
import { SweepPool, type WorkerLike } from './sweep_pool';
import { SweepView } from './sweep_view';
import { readSweepHash, sweepHash } from './url';

export interface SweepMountHost {
  scenarioText(): string;
  openScenario(text: string): void;
}

const MAX_WORKERS = 8;

const newWorker = () => new Worker(new URL('./sweep_worker.ts', import.meta.url), { type: 'module' }) as unknown as WorkerLike;

export function mountSweepView(host: SweepMountHost): SweepView | undefined {
  const main = document.querySelector<HTMLElement>('main.main');
  const nav = document.querySelector<HTMLElement>('.topnav');
  if (!main || !nav) return undefined;
  // One worker per core: each point runs in slices with pauses the page's pacer sets from its
  // own frame gaps (pacer.ts), so the page is not left waiting for a core.
  const cores = Math.max(1, Math.min(MAX_WORKERS, navigator.hardwareConcurrency || 2));
  const pool = new SweepPool(newWorker, cores);

  let open = false;
  let urlTimer: number | undefined;
  const writeUrl = () => {
    window.clearTimeout(urlTimer);
    urlTimer = window.setTimeout(async () => {
      const hash = open ? await sweepHash(view.text()) : '';
      history.replaceState(null, '', `${location.pathname}${location.search}${hash}`);
    }, 300);
  };
  const view = new SweepView(pool, {
    scenarioText: () => host.scenarioText(),
    openScenario: (text) => {
      host.openScenario(text);
      setOpen(false);
    },
    onDocumentChange: writeUrl,
  });
  view.el.hidden = true;
  main.prepend(view.el);
  const toggle = document.createElement('button');
  toggle.type = 'button';
  toggle.className = 'btn btn-ghost btn-toggle';
  toggle.dataset['testid'] = 'sweep-toggle';
  toggle.setAttribute('aria-pressed', 'false');
  toggle.title = 'Sweep a grid of scenarios and rank them (blis sweep in the browser)';
  toggle.textContent = 'Sweep';
  nav.insertBefore(toggle, nav.querySelector('#share'));
  const setOpen = (v: boolean) => {
    open = v;
    view.el.hidden = !v;
    document.body.classList.toggle('sweep-open', v);
    toggle.setAttribute('aria-pressed', String(v));
    if (v && view.text().trim() === '') view.buildFromScenario();
    writeUrl();
  };
  toggle.addEventListener('click', () => setOpen(!open));
  const capacity = new CapacityPanel(new SweepPool(newWorker, 1), {
    scenarioText: () => host.scenarioText(),
    openScenario: (text) => {
      host.openScenario(text);
      setOpen(false);
    },
  });
  document.querySelector<HTMLElement>('.scenario-panel')?.append(capacity.el);
  void readSweepHash(location.hash).then(
    (text) => {
      if (text === undefined) return;
      view.setText(text);
      setOpen(true);
    },
    () => undefined,
  );
  return view;
}
