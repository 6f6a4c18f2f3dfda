// The main pane's banner for a scenario that does not run: its first error (pointer and
// message) and a Show button that takes the user to the field or JSON line it names.

import type { Diagnostic, SlotId } from '../protocol';

export function renderErrorBanner(
  host: HTMLElement,
  slots: { slot: SlotId; diags: Diagnostic[] }[],
  compare: boolean,
  show: (slot: SlotId, pointer: string) => void,
): void {
  host.replaceChildren();
  for (const { slot, diags } of slots) {
    const errors = diags.filter((x) => x.severity === 'error');
    if (errors.length === 0) continue;
    const first = errors[0]!;
    const p = document.createElement('p');
    const where = first.pointer === '#syntax' ? 'JSON' : first.pointer || '/';
    const label = compare ? `Scenario ${slot.toUpperCase()}` : 'The scenario';
    p.append(`${label} has ${errors.length} error${errors.length > 1 ? 's' : ''} and does not run: `);
    const code = document.createElement('code');
    code.textContent = where;
    p.append(code, ` ${first.message} `);
    const go = document.createElement('button');
    go.type = 'button';
    go.className = 'btn btn-small';
    go.textContent = 'Show';
    go.addEventListener('click', () => show(slot, first.pointer));
    p.append(go);
    host.append(p);
  }
}
