/** Building the page's elements, with text nodes only: nothing shown is ever parsed as markup. */

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string | number | null): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (e === null) throw new Error(`the report has no #${id}`);
  return e as T;
}

export function statusBadge(status: string): HTMLSpanElement {
  return el('span', 'status ' + status, status);
}

export function cellPre(text: string): HTMLTableCellElement {
  const td = el('td');
  td.appendChild(el('pre', '', text));
  return td;
}
