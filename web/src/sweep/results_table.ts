// The ranked table: one row per point in the core's order, with each axis's value, the
// objective, the Pareto goals, whether the point is on the front, the constraint verdict
// (feasible, or the violations), its digest and an Open button.

import { button, el } from '../ui/dom';
import { fmtValue, type Goal, type SweepDoc, type TableRow } from './view_model';

export function renderTable(
  table: HTMLTableElement,
  doc: SweepDoc,
  rows: TableRow[],
  objective: Goal,
  open: (index: number) => void,
): void {
  const titles = [
    'rank',
    'point',
    ...doc.axes.map((a) => a.name),
    objective.metric ? `${objective.maximize ? 'max' : 'min'} ${objective.metric}` : 'objective',
    ...doc.pareto.map((g) => g.metric),
    'Pareto',
    'constraints',
    'digest',
    '',
  ];
  const head = el('tr', {}, ...titles.map((h) => el('th', {}, h)));
  const body = rows.map((r) => {
    const openBtn = button('Open', `sweep-open-${r.index}`);
    openBtn.title = `Open point ${r.index} as the playground's scenario`;
    openBtn.addEventListener('click', () => open(r.index));
    const cls = `${r.feasible ? 'feasible' : 'infeasible'}${r.pareto ? ' pareto' : ''}`;
    return el(
      'tr',
      { class: cls, 'data-index': String(r.index) },
      el('td', {}, r.rank === undefined ? '…' : String(r.rank)),
      el('td', {}, String(r.index)),
      ...r.axes.map((a) => el('td', {}, a)),
      el('td', {}, fmtValue(r.objective)),
      ...r.goals.map((g) => el('td', {}, fmtValue(g))),
      el('td', {}, r.pareto ? 'yes' : ''),
      el('td', { class: 'verdict' }, r.feasible ? 'yes' : `no: ${r.why}`),
      el('td', {}, el('code', {}, r.digest)),
      el('td', {}, openBtn),
    );
  });
  table.replaceChildren(el('thead', {}, head), el('tbody', {}, ...body));
  table.dataset['rows'] = String(rows.length);
}
