// The Window select: the time series' tumbling window (outputs.timeseries_interval_ms) of the
// edited scenario, the document's value else the simulator's default from the resolved
// document; choosing one writes it into every shown scenario.

import { getAt, setAt, type Json } from '../scenario/knobs';
import { $as } from './dom';

export const WINDOW_POINTER = '/outputs/timeseries_interval_ms';
const WINDOW_CHOICES_MS = [100, 250, 500, 1000, 2000, 5000, 10000];

export function fmtWindow(ms: number): string {
  return ms >= 1000 ? `${+(ms / 1000).toFixed(2)} s` : `${ms} ms`;
}

/** The scenario text with its window set to `ms`; undefined when the text does not parse. */
export function withWindow(text: string, ms: number): string | undefined {
  try {
    return JSON.stringify(setAt(JSON.parse(text) as Json, WINDOW_POINTER, ms), null, 2);
  } catch {
    return undefined; // a text that does not parse keeps its error; nothing to write into
  }
}

export class WindowControl {
  private readonly sel = $as<HTMLSelectElement>('window');

  constructor(onChoose: (ms: number) => void) {
    this.sel.addEventListener('change', () => {
      const ms = Number(this.sel.value);
      if (ms >= 1) onChoose(ms);
    });
  }

  /** Shows the window of `doc` (else of `effective`); returns it, or undefined if unknown yet. */
  render(doc: Json | undefined, effective: Json): number | undefined {
    let v = doc === undefined ? undefined : getAt(doc, WINDOW_POINTER);
    if (typeof v !== 'number' && effective !== null) v = getAt(effective, WINDOW_POINTER);
    if (typeof v !== 'number') return undefined; // not known yet: the next validation tells
    const ms = v;
    const choices = WINDOW_CHOICES_MS.includes(ms) ? WINDOW_CHOICES_MS : [...WINDOW_CHOICES_MS, ms].sort((x, y) => x - y);
    if (this.sel.options.length !== choices.length) {
      this.sel.replaceChildren(...choices.map((c) => new Option(fmtWindow(c), String(c))));
    }
    this.sel.value = String(ms);
    return ms;
  }
}
