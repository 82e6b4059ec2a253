// Import statements of a source file, read in one pass: the module each one names, where it
// is and the statement's text. Matching the frameworks against module names afterwards costs
// the same for one framework or fifty, where one regex per framework over the whole file did
// not (measured: 11 regex passes were 80 % of the scan time on a Python tree).
import type { FileKind } from './walker.ts';

export interface ImportStatement {
  module: string;
  /** Offset of the statement in the file text. */
  offset: number;
  /** The statement (one line, as written). */
  text: string;
}

const PY_FROM = /^from[ \t]+([\w.]+)[ \t]+import\b/;
const PY_IMPORT = /^import[ \t]+([\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*)/;
const CS_USING = /^(?:global[ \t]+)?using[ \t]+(?:static[ \t]+)?(?:\w+[ \t]*=[ \t]*)?([\w.]+)[ \t]*;/;
const JAVA_IMPORT = /^import[ \t]+(?:static[ \t]+)?([\w.]+)/;
const JS_SPECIFIER = /\b(?:from|require\(|import\(?)[ \t]*['"]([^'"\n]+)['"]/g;

function* lines(text: string): Generator<{ line: string; offset: number }> {
  let offset = 0;
  while (offset <= text.length) {
    const end = text.indexOf('\n', offset);
    const stop = end === -1 ? text.length : end;
    yield { line: text.slice(offset, stop), offset };
    if (end === -1) return;
    offset = end + 1;
  }
}

function pythonImports(text: string): ImportStatement[] {
  const out: ImportStatement[] = [];
  for (const { line, offset } of lines(text)) {
    if (!line.includes('import')) continue;
    // Notebooks (.ipynb) keep each source line as a JSON string: `"from x import y\n",`.
    const lead = /^[ \t]*"?[ \t]*/.exec(line)![0].length;
    const stmt = line.slice(lead).replace(/\\n",?[ \t]*$|",?[ \t]*$/, '').trimEnd();
    const from = PY_FROM.exec(stmt);
    if (from) {
      out.push({ module: from[1]!, offset: offset + lead, text: stmt });
      continue;
    }
    const plain = PY_IMPORT.exec(stmt);
    if (plain) {
      for (const part of plain[1]!.split(',')) {
        out.push({ module: part.trim().split(/[ \t]/)[0]!, offset: offset + lead, text: stmt });
      }
    }
  }
  return out;
}

function lineImports(text: string, pattern: RegExp, keyword: string): ImportStatement[] {
  const out: ImportStatement[] = [];
  for (const { line, offset } of lines(text)) {
    if (!line.includes(keyword)) continue;
    const lead = line.length - line.trimStart().length;
    const m = pattern.exec(line.slice(lead));
    if (m) out.push({ module: m[1]!, offset: offset + lead, text: line.trim() });
  }
  return out;
}

function jsImports(text: string): ImportStatement[] {
  const out: ImportStatement[] = [];
  const re = new RegExp(JS_SPECIFIER.source, 'g');
  for (let m = re.exec(text); m; m = re.exec(text)) {
    // Multi-line `import {\n a,\n} from 'x'`: cite the line with the specifier.
    const lineStart = text.lastIndexOf('\n', m.index) + 1;
    const lineEnd = text.indexOf('\n', m.index);
    const line = text.slice(lineStart, lineEnd === -1 ? undefined : lineEnd);
    const lead = line.length - line.trimStart().length;
    out.push({ module: m[1]!, offset: lineStart + lead, text: line.trim() });
  }
  return out;
}

export function findImports(text: string, kind: FileKind): ImportStatement[] {
  switch (kind) {
    case 'python':
      return pythonImports(text);
    case 'js':
      return jsImports(text);
    case 'csharp':
      return lineImports(text, CS_USING, 'using');
    case 'java':
      return lineImports(text, JAVA_IMPORT, 'import');
    default:
      return [];
  }
}
