// Escaping for the HTML parts of our emails: every value that came from data (agent names,
// departments, check ids) goes through it.
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** Subject lines are one line: data with a newline must not add headers or wrap oddly. */
export function oneLine(text: string, max = 180): string {
  const flat = text.replace(/[\r\n\t]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
