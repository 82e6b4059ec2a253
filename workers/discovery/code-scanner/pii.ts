// Hints of personal data. Identifiers and words are split into lower-case parts
// (`customerEmail`, `customer_email`, "customer e-mail" all give [customer, e?, mail...]) so one
// table of part sequences covers snake case, camel case, constants and prose alike.

interface PiiRule {
  category: string;
  sequences: string[][];
  /** A part right before the match that makes it something else (`ip address`). */
  notAfter?: ReadonlySet<string>;
}

const PII_RULES: readonly PiiRule[] = [
  { category: 'email', sequences: [['email'], ['emails'], ['e', 'mail']] },
  { category: 'ssn', sequences: [['ssn'], ['social', 'security']] },
  { category: 'date_of_birth', sequences: [['date', 'of', 'birth'], ['dob'], ['birth', 'date'], ['birthdate'], ['birthday']] },
  { category: 'phone', sequences: [['phone'], ['phonenumber'], ['telephone'], ['mobile', 'number']] },
  {
    category: 'address',
    sequences: [['address'], ['street'], ['postcode'], ['zip', 'code'], ['postal', 'code']],
    notAfter: new Set([
      'ip', 'mac', 'server', 'host', 'email', 'mail', 'remote', 'bind', 'listen', 'wallet', 'web',
      'url', 'base', 'endpoint', 'memory', 'return', 'network', 'contract', 'socket', 'local', 'peer', 'proxy',
    ]),
  },
  { category: 'passport', sequences: [['passport']] },
  { category: 'credit_card', sequences: [['credit', 'card'], ['creditcard'], ['card', 'number'], ['cvv'], ['cc', 'number']] },
  { category: 'bank_account', sequences: [['iban'], ['bank', 'account'], ['routing', 'number']] },
  {
    category: 'health',
    sequences: [['patient'], ['patients'], ['medical', 'record'], ['medical', 'records'], ['mrn'], ['diagnosis'], ['health', 'record'], ['prescription']],
  },
  { category: 'national_id', sequences: [['national', 'id'], ['tax', 'id'], ['driver', 'license'], ['drivers', 'license'], ['driving', 'licence']] },
  { category: 'person_name', sequences: [['first', 'name'], ['last', 'name'], ['full', 'name'], ['surname']] },
];

interface Part {
  text: string;
  start: number;
  end: number;
}

// Words of a line split at non-alphanumerics, underscores and lower-to-upper case changes.
function partsOf(line: string): Part[] {
  const parts: Part[] = [];
  const word = /[A-Za-z][A-Za-z0-9]*/g;
  for (let m = word.exec(line); m; m = word.exec(line)) {
    const piece = /[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])/g;
    for (let p = piece.exec(m[0]); p; p = piece.exec(m[0])) {
      parts.push({ text: p[0].toLowerCase(), start: m.index + p.index, end: m.index + p.index + p[0].length });
    }
  }
  return parts;
}

export interface PiiHit {
  category: string;
  /** Column of the match in the line and the matched text. */
  index: number;
  match: string;
}

/** Every rule's first word occurs in a line that can hold a hint; used to skip the others. */
export const PII_STEMS =
  /mail|ssn|social|birth|dob|phone|mobile|address|street|postcode|postal|zip|passport|card|cvv|iban|bank|routing|patient|medical|mrn|diagnos|health|prescri|national|tax|driv|(?:first|last|full|sur)[ _-]?name/gi;

export function findPii(line: string): PiiHit[] {
  const parts = partsOf(line);
  const hits: PiiHit[] = [];
  for (let i = 0; i < parts.length; i++) {
    for (const rule of PII_RULES) {
      const seq = rule.sequences.find((s) => s.every((w, k) => parts[i + k]?.text === w));
      if (!seq) continue;
      if (rule.notAfter && i > 0 && rule.notAfter.has(parts[i - 1]!.text)) continue;
      const first = parts[i]!;
      const last = parts[i + seq.length - 1]!;
      hits.push({ category: rule.category, index: first.start, match: line.slice(first.start, last.end) });
    }
  }
  return hits;
}
