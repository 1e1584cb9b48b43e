// A tiny DOM builder: the views build their markup from data with it, never from HTML strings, so
// nothing an API returns is ever parsed as markup.
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | ((e: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === "function") el.addEventListener(k.replace(/^on/, ""), v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

export function append(el: Element, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
}

export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

export const byId = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from index.html`);
  return el as T;
};

/** A labelled form field; `name` is what formValues() reads. */
export function field(label: string, input: HTMLInputElement | HTMLSelectElement): HTMLLabelElement {
  return h("label", { class: "field" }, h("span", {}, label), input);
}

export const input = (name: string, attrs: Attrs = {}) => h("input", { name, id: `f-${name}`, autocomplete: "off", ...attrs });

export function select(name: string, options: [value: string, label: string][], attrs: Attrs = {}): HTMLSelectElement {
  return h("select", { name, id: `f-${name}`, ...attrs }, ...options.map(([value, label]) => h("option", { value }, label)));
}

export function formValues(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {};
  for (const el of Array.from(form.elements)) {
    if (el instanceof HTMLInputElement && el.type === "checkbox") out[el.name] = el.checked ? "true" : "";
    else if (el instanceof HTMLInputElement || el instanceof HTMLSelectElement) out[el.name] = el.value.trim();
  }
  return out;
}

/**
 * A table from rows; `empty` shows when there are none. Each cell carries its column's header
 * (`data-label`): a table marked `data-stack` lists its rows as labelled blocks on a phone.
 */
export function table(headers: string[], rows: Child[][], empty: string, attrs: Attrs = {}): HTMLElement {
  if (rows.length === 0) return h("p", { class: "empty", ...attrs }, empty);
  return h("div", { class: "table-wrap", ...attrs },
    h("table", {},
      h("thead", {}, h("tr", {}, ...headers.map((t) => h("th", {}, t)))),
      h("tbody", {}, ...rows.map((r) => h("tr", {}, ...r.map((c, i) => h("td", { "data-label": headers[i] || undefined }, c)))))));
}
