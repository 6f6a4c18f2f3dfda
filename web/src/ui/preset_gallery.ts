// The preset buttons. Choosing one loads its scenario (and its B scenario in compare mode).
import type { Preset } from '../scenario/presets';
import { textEl } from './dom';

export class PresetGallery {
  private readonly buttons = new Map<string, HTMLButtonElement>();

  constructor(host: HTMLElement, presets: readonly Preset[], onChoose: (p: Preset) => void) {
    for (const p of presets) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'preset';
      b.setAttribute('role', 'listitem');
      b.dataset['testid'] = `preset-${p.name}`;
      b.setAttribute('aria-pressed', 'false');
      b.title = p.blurb;
      const t = textEl('span', 'preset-title', p.title);
      const tag = textEl('span', 'preset-tag');
      tag.textContent = p.compare
        ? `A/B · ${p.compare.label}`
        : p.measured
          ? 'with measured results'
          : p.blurb.split(':')[0]!.slice(0, 40);
      b.append(t, tag);
      b.addEventListener('click', () => onChoose(p));
      host.append(b);
      this.buttons.set(p.name, b);
    }
  }

  select(name: string | undefined): void {
    for (const [n, b] of this.buttons) b.setAttribute('aria-pressed', String(n === name));
  }
}
