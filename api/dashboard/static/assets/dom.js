// Element builders and formatters. Every string reaches the page as a text node or an attribute
// value, never as markup, so data from the API cannot inject HTML.

const SVG_NS = 'http://www.w3.org/2000/svg';

function apply(el, attrs) {
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.setAttribute('class', value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    // CSSOM, not a style attribute: the content-security-policy forbids inline style attributes.
    else if (key === 'style') Object.assign(el.style, value);
    else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** h('td', {class: 'num'}, 'text', otherNode): an HTML element. */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

/** The same for SVG elements. */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

/** Shows the problem's detail in the section's alert paragraph, or hides it. */
export function showProblem(section, error) {
  const slot = section.querySelector(':scope > .problem, :scope form > .problem');
  if (!slot) return;
  if (!error) {
    slot.hidden = true;
    slot.replaceChildren();
    return;
  }
  const lines = [error.detail ?? String(error.message ?? error)];
  for (const field of error.errors ?? []) lines.push(`${field.path}: ${field.message}`);
  slot.replaceChildren(...lines.map((line, i) => (i === 0 ? document.createTextNode(line) : h('span', { class: 'field-error' }, line))));
  slot.hidden = false;
}

/** A definition list of tiles: [{label, value, title?, key?}]. */
export function tiles(items) {
  return items.map((item) =>
    h('div', { class: 'tile', dataset: item.key ? { tile: item.key } : undefined },
      h('dt', null, item.label),
      h('dd', { title: item.title, dataset: item.raw !== undefined ? { value: String(item.raw) } : undefined }, item.value)),
  );
}

/** A <table> with a caption, a header row and body rows of cells (strings or nodes); the first cell of a row is its header. */
export function table(caption, headers, rows, attrs = {}) {
  const th = headers.map((header) => {
    const { label, numeric } = typeof header === 'string' ? { label: header, numeric: false } : header;
    return h('th', { scope: 'col', class: numeric ? 'num' : undefined }, label);
  });
  const body = rows.map((cells) =>
    h('tr', null, cells.map((cell, i) => {
      const numeric = typeof headers[i] === 'object' && headers[i].numeric;
      return h(i === 0 ? 'th' : 'td', { scope: i === 0 ? 'row' : undefined, class: numeric ? 'num' : undefined }, cell);
    })),
  );
  return h('table', attrs, h('caption', { class: caption.visible ? undefined : 'visually-hidden' }, caption.text ?? caption), h('thead', null, h('tr', null, th)), h('tbody', null, body));
}

const numberFormats = new Map();
function numberFormat(options) {
  const key = JSON.stringify(options);
  let format = numberFormats.get(key);
  if (!format) numberFormats.set(key, (format = new Intl.NumberFormat(undefined, options)));
  return format;
}

/** Small amounts keep more decimals: one LLM call costs fractions of a cent. */
export function money(value, currency) {
  const abs = Math.abs(value);
  const digits = abs === 0 || abs >= 1 ? 2 : abs >= 0.01 ? 4 : 6;
  try {
    return numberFormat({ style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(value);
  } catch {
    // An unknown currency code: show the number and the code as they are.
    return `${value.toFixed(digits)} ${currency}`;
  }
}

export function integer(value) {
  return numberFormat({ maximumFractionDigits: 0 }).format(value);
}

/** 0.75 → "75%"; null → "–". */
export function percent(rate, digits = 0) {
  if (rate === null || rate === undefined) return '–';
  return numberFormat({ style: 'percent', minimumFractionDigits: digits, maximumFractionDigits: digits }).format(rate);
}

export function dateTime(iso) {
  if (!iso) return 'never';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** A pill with a modifier class derived from the value (status, risk level, trend). */
export function badge(value, kind) {
  return h('span', { class: `badge ${kind}-${String(value).toLowerCase().replace(/[^a-z0-9]+/g, '-')}` }, String(value).replace(/_/g, ' '));
}

/** Background colour of a pass rate: red at 0, amber around 0.5, green at 1, always light. */
export function passRateColour(rate) {
  return `hsl(${Math.round(rate * 120)}, 70%, 82%)`;
}

export function yesNo(value) {
  return value === null || value === undefined ? 'unknown' : value ? 'yes' : 'no';
}
