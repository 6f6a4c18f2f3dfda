import { describe, expect, it } from 'vitest';
import type { PointRow, RankResult } from './protocol';
import { fmtValue, goalOf, heatMap, scatterPoints, sweepDoc, tableRows } from './view_model';

const normalized = JSON.stringify({
  schema: 'blis/sweep/v1',
  name: 'grid',
  base: {},
  axes: [
    { name: 'instances', pointer: '/i', values: [1, 2] },
    {
      name: 'mnbt',
      linked: [
        { pointer: '/m', values: [512, 2048] },
        { pointer: '/r', values: [10, 20] },
      ],
    },
  ],
  pareto: [{ minimize: '/cost' }, { minimize: '/ttft' }],
});

function row(index: number, i: number, m: number, r: number, feasible: boolean, cost: number): PointRow {
  return {
    index,
    point: { '/i': i, '/m': m, '/r': r },
    digest: `d${index}`,
    feasible,
    violations: feasible ? [] : ['/ttft = 900 > 500'],
    objective: cost,
    metrics: { '/cost': cost, '/ttft': 100 * (4 - index) },
  };
}

const rows = [row(2, 2, 512, 10, true, 2), row(0, 1, 512, 10, true, 1), row(1, 1, 2048, 20, false, 0.5)];
const ranking: RankResult = {
  ranking: {
    objective: { minimize: '/cost' },
    pareto: [{ minimize: '/cost' }, { minimize: '/ttft' }],
    ranked: [
      { rank: 1, index: 0, feasible: true, objective: 1, pareto: true },
      { rank: 2, index: 2, feasible: true, objective: 2, pareto: true },
    ],
  },
  pareto: [
    { index: 0, pareto: true },
    { index: 2, pareto: true },
  ],
  table: '',
};

describe("the sweep view's model (laid out from the core's answers)", () => {
  const doc = sweepDoc(normalized);

  it("reads the normalized document's axes, linked members included", () => {
    expect(doc.axes.map((a) => a.pointers)).toEqual([['/i'], ['/m', '/r']]);
    expect(doc.pareto).toEqual([goalOf({ minimize: '/cost' }), goalOf({ minimize: '/ttft' })]);
    expect(goalOf({ maximize: '/g' })).toEqual({
      metric: '/g',
      maximize: true,
    });
  });

  it('orders the table as the ranking says; unranked rows follow by index', () => {
    const t = tableRows(doc, rows, ranking);
    expect(t.map((r) => [r.rank, r.index])).toEqual([
      [1, 0],
      [2, 2],
      [undefined, 1],
    ]);
    expect(t[0]!.axes).toEqual(['1', '512, 10']);
    expect(t[0]!.pareto).toBe(true);
    expect(t[2]!.why).toBe('/ttft = 900 > 500');
    expect(t[2]!.feasible).toBe(false);
    expect(tableRows(doc, rows).map((r) => r.index)).toEqual([0, 1, 2]);
  });

  it('plots both goals, the front as marked', () => {
    const pts = scatterPoints(doc, tableRows(doc, rows, ranking));
    expect(pts.find((p) => p.index === 0)).toEqual({
      index: 0,
      x: 1,
      y: 400,
      feasible: true,
      pareto: true,
    });
    expect(pts.filter((p) => p.pareto).length).toBe(2);
  });

  it('places each row of a two-axis grid by its own values', () => {
    const h = heatMap(doc, rows)!;
    expect(h.cells.map((line) => line.map((c) => c?.index))).toEqual([
      [0, 1],
      [2, undefined],
    ]);
    expect(h.cells[0]![1]!.feasible).toBe(false);
    const three = sweepDoc(
      JSON.stringify({
        axes: [1, 2, 3].map((k) => ({
          name: `a${k}`,
          pointer: `/a${k}`,
          values: [1],
        })),
      }),
    );
    expect(heatMap(three, [])).toBeUndefined();
  });

  it('prints six significant digits, as ranking.md does', () => {
    expect(fmtValue(1.01017645409494)).toBe('1.01018');
    expect(fmtValue(null)).toBe('-');
    expect(fmtValue('H100')).toBe('H100');
  });
});
