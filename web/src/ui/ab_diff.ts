// Compare mode's note above the cards: the keys B changes against A, with both values.

import { jsonDiff, showValue } from '../lib/json_diff';
import type { Json } from '../scenario/knobs';

export function renderDiff(host: HTMLElement, a: Json | undefined, b: Json | undefined, nameA: string, nameB: string): void {
  const changes = jsonDiff(a, b).filter((c) => c.pointer !== '/name');
  const head = document.createElement('p');
  head.textContent =
    changes.length === 0
      ? `B (${nameB}) is the same scenario as A (${nameA}).`
      : `B (${nameB}) differs from A (${nameA}) in ${changes.length} key${changes.length > 1 ? 's' : ''}:`;
  host.append(head);
  const ul = document.createElement('ul');
  for (const c of changes.slice(0, 8)) {
    const li = document.createElement('li');
    const code = document.createElement('code');
    code.textContent = c.pointer;
    li.append(code, ` ${showValue(c.a)} → ${showValue(c.b)}`);
    ul.append(li);
  }
  if (changes.length > 8)
    ul.append(Object.assign(document.createElement('li'), { textContent: `… and ${changes.length - 8} more` }));
  host.append(ul);
}
