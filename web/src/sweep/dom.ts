// A small element builder for the sweep view (attributes, then children).

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
