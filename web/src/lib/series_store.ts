// Columnar time series on the main thread: the worker posts deltas (new rows of every
// column, as Float64Arrays), the store appends them into growable buffers, and charts read
// zero-copy subarrays. Decimation keeps what is drawn bounded however long the run.

export interface SeriesDelta {
  /** Row index of the first row in `columns`: equals the store's length when in sync. */
  from: number;
  /** One array per column, all of the same length (the number of new rows). */
  columns: Float64Array[];
}

export class SeriesStore {
  private bufs: Float64Array[];
  private rows = 0;

  constructor(
    readonly names: readonly string[],
    initialCapacity = 256,
  ) {
    this.bufs = names.map(() => new Float64Array(initialCapacity));
  }

  get length(): number {
    return this.rows;
  }

  get capacity(): number {
    return this.bufs[0]?.length ?? 0;
  }

  append(delta: SeriesDelta): void {
    if (delta.columns.length !== this.names.length) {
      throw new Error(`series delta has ${delta.columns.length} columns, expected ${this.names.length}`);
    }
    if (delta.from !== this.rows) {
      throw new Error(`series delta starts at row ${delta.from}, but ${this.rows} rows are stored`);
    }
    const n = delta.columns[0]?.length ?? 0;
    for (const c of delta.columns) {
      if (c.length !== n) throw new Error('series delta columns differ in length');
    }
    if (n === 0) return;
    this.reserve(this.rows + n);
    delta.columns.forEach((c, i) => this.bufs[i]!.set(c, this.rows));
    this.rows += n;
  }

  /** A view of one column's stored rows (valid until the next append). */
  column(name: string): Float64Array {
    const i = this.names.indexOf(name);
    if (i < 0) throw new Error(`no series column '${name}'`);
    return this.bufs[i]!.subarray(0, this.rows);
  }

  has(name: string): boolean {
    return this.names.includes(name);
  }

  last(name: string): number | undefined {
    return this.rows > 0 ? this.column(name)[this.rows - 1] : undefined;
  }

  clear(): void {
    this.rows = 0;
  }

  private reserve(n: number): void {
    if (n <= this.capacity) return;
    let cap = Math.max(16, this.capacity);
    while (cap < n) cap *= 2;
    this.bufs = this.bufs.map((old) => {
      const b = new Float64Array(cap);
      b.set(old.subarray(0, this.rows));
      return b;
    });
  }
}

/**
 * Min/max decimation of aligned series for drawing: rows are cut into buckets and each
 * bucket becomes two points (its first and last x) carrying, per series, the bucket's
 * extremes in the order they occur, so peaks survive. Returns the input untouched when it
 * already fits. NaN (a gap) is kept as a gap.
 */
export function decimate(xs: Float64Array, ys: readonly Float64Array[], maxPoints: number): [Float64Array, Float64Array[]] {
  const n = xs.length;
  if (n <= maxPoints || maxPoints < 4) return [xs, ys.slice()];
  const buckets = Math.floor(maxPoints / 2);
  const outX = new Float64Array(buckets * 2);
  const outY = ys.map(() => new Float64Array(buckets * 2));
  for (let b = 0; b < buckets; b++) {
    const lo = Math.floor((b * n) / buckets);
    const hi = Math.floor(((b + 1) * n) / buckets); // exclusive, > lo since n > buckets
    outX[2 * b] = xs[lo]!;
    outX[2 * b + 1] = xs[hi - 1]!;
    ys.forEach((y, s) => {
      let minI = -1,
        maxI = -1;
      for (let i = lo; i < hi; i++) {
        const v = y[i]!;
        if (Number.isNaN(v)) continue;
        if (minI < 0 || v < y[minI]!) minI = i;
        if (maxI < 0 || v > y[maxI]!) maxI = i;
      }
      const o = outY[s]!;
      if (minI < 0) {
        o[2 * b] = NaN;
        o[2 * b + 1] = NaN;
      } else {
        const first = Math.min(minI, maxI),
          second = Math.max(minI, maxI);
        o[2 * b] = y[first]!;
        o[2 * b + 1] = y[second]!;
      }
    });
  }
  return [outX, outY];
}

/** Empirical CDF of samples for plotting: sorted values and cumulative fractions (0..1],
 *  thinned to at most maxPoints evenly spaced quantiles. NaN samples are dropped. */
export function empiricalCdf(samples: ArrayLike<number>, maxPoints = 512): [Float64Array, Float64Array] {
  const vals: number[] = [];
  for (let i = 0; i < samples.length; i++) {
    const v = samples[i]!;
    if (!Number.isNaN(v)) vals.push(v);
  }
  vals.sort((a, b) => a - b);
  const n = vals.length;
  if (n === 0) return [new Float64Array(0), new Float64Array(0)];
  const m = Math.min(n, Math.max(2, maxPoints));
  const xs = new Float64Array(m);
  const ps = new Float64Array(m);
  for (let k = 0; k < m; k++) {
    const i = m === n ? k : Math.round((k * (n - 1)) / (m - 1));
    xs[k] = vals[i]!;
    ps[k] = (i + 1) / n;
  }
  return [xs, ps];
}
