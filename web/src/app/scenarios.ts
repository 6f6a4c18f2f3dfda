// The scenario documents the page holds: slot A's and B's text, their diagnostics and
// resolved forms, which one is being edited, whether B is shown, and the preset they match.
// Plain state: the components read it, the App changes it.

import type { Diagnostic, SlotId } from '../protocol';
import type { Json } from '../scenario/knobs';
import { PRESETS, type Preset } from '../scenario/presets';

export class Scenarios {
  readonly texts: Record<SlotId, string> = { a: '', b: '' };
  readonly diags: Record<SlotId, Diagnostic[]> = { a: [], b: [] };
  /** Each slot's resolved document (every default written out), from the last valid text. */
  readonly effective: Record<SlotId, Json> = { a: null, b: null };
  editing: SlotId = 'a';
  compare = false;
  preset?: Preset;

  activeSlots(): SlotId[] {
    return this.compare ? ['a', 'b'] : ['a'];
  }

  /** The preset whose documents the texts are, if any (edits leave the preset). */
  matchingPreset(): Preset | undefined {
    return PRESETS.find((p) => p.scenario === this.texts.a && (this.compare ? p.compare?.scenario === this.texts.b : !p.compare));
  }

  /** A slot's text as JSON, or undefined while it does not parse. */
  parsed(slot: SlotId): Json | undefined {
    try {
      return JSON.parse(this.texts[slot]) as Json;
    } catch {
      return undefined;
    }
  }

  /** The resolved document (defaults count), else the text as written. */
  resolved(slot: SlotId): Json | undefined {
    return this.effective[slot] !== null ? this.effective[slot] : this.parsed(slot);
  }

  /** A run's name: its scenario's `name`, or A / B. */
  runName(slot: SlotId): string {
    const doc = this.parsed(slot);
    const n = doc !== null && typeof doc === 'object' && !Array.isArray(doc) ? doc['name'] : undefined;
    return typeof n === 'string' && n.trim() ? n.trim() : slot.toUpperCase();
  }

  swap(): void {
    [this.texts.a, this.texts.b] = [this.texts.b, this.texts.a];
    [this.effective.a, this.effective.b] = [this.effective.b, this.effective.a];
  }
}
