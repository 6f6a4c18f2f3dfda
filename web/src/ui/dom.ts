// The element builders of the views (the sweep view, the charts, the cards, the presets): one
// way to make an element with its class and text.

/** An element with its class (when not empty) and, when given, its text. */
export function textEl<K extends keyof HTMLElementTagNameMap>(tag: K, cls: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** An element with attributes ("class" sets its class), then children. */

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else e.setAttribute(k, v);
  }
  e.append(...children);
  return e;
}

export function button(label: string, testid: string, cls = 'btn btn-small'): HTMLButtonElement {
  return el('button', { type: 'button', class: cls, 'data-testid': testid }, label);
}
