// The page's fixed elements (index.html) by id, and the main pane's message banner.

export function $(id: string): HTMLElement {
  const e = document.getElementById(id);
  if (!e) throw new Error(`missing #${id}`);
  return e;
}

/** An element of a known kind (a select, a button, ...). */
export function $as<T extends HTMLElement>(id: string): T {
  return $(id) as T;
}

/** The banner above the charts: a failure (or, with `info`, a notice) the user must see. */
export function showBanner(text: string, info = false): void {
  const b = $('banner');
  b.textContent = text;
  b.classList.toggle('info', info);
  b.hidden = false;
}
