// Maps a position in tsx's transformed code back to the TypeScript line, for profile summaries.
// tsx minifies each .ts file onto about one line, so a .cpuprofile of the service says
// "server.ts:1, column 4912". tsx keeps each transform in its cache folder (tmpdir/tsx-<uid>/,
// JSON {code, map}); the newest entry for a file that is not newer than the profile is the code
// that ran. When none is found, callers show the column instead.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

type Segments = number[][][]; // per generated line: [genCol, srcIdx, srcLine, srcCol]

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function decodeMappings(mappings: string): Segments {
  const lines: Segments = [];
  let src = 0;
  let srcLine = 0;
  let srcCol = 0;
  for (const line of mappings.split(';')) {
    const segs: number[][] = [];
    let genCol = 0;
    for (const seg of line.split(',')) {
      if (!seg) continue;
      const v: number[] = [];
      let value = 0;
      let shift = 0;
      for (const ch of seg) {
        const d = B64.indexOf(ch);
        value += (d & 31) << shift;
        if (d & 32) shift += 5;
        else {
          v.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      genCol += v[0]!;
      if (v.length >= 4) {
        src += v[1]!;
        srcLine += v[2]!;
        srcCol += v[3]!;
        segs.push([genCol, src, srcLine, srcCol]);
      }
    }
    lines.push(segs);
  }
  return lines;
}

export class TsxSourceMaps {
  private maps = new Map<string, Segments | null>();
  private index?: Map<string, Array<{ file: string; mtime: number }>>;

  /** Cache entries not newer than `notAfterMs` (the profile's time) are considered. */
  constructor(private readonly notAfterMs: number, private readonly cacheDir = path.join(os.tmpdir(), `tsx-${process.getuid?.() ?? 0}`)) {}

  /** 1-based TypeScript line of a 0-based generated position, or undefined. */
  originalLine(sourcePath: string, line: number, column: number): number | undefined {
    const segs = this.segments(sourcePath)?.[line];
    if (!segs?.length) return undefined;
    let best: number[] | undefined;
    for (const s of segs) {
      if (s[0]! <= column) best = s;
      else break;
    }
    return best ? best[2]! + 1 : undefined;
  }

  private segments(sourcePath: string): Segments | null {
    if (!this.maps.has(sourcePath)) this.maps.set(sourcePath, this.load(sourcePath));
    return this.maps.get(sourcePath)!;
  }

  private load(sourcePath: string): Segments | null {
    const candidates = (this.buildIndex().get(sourcePath) ?? []).filter((c) => c.mtime <= this.notAfterMs + 1000);
    const newest = candidates.sort((a, b) => b.mtime - a.mtime)[0];
    if (!newest) return null;
    try {
      const entry = JSON.parse(readFileSync(newest.file, 'utf8')) as { map?: { mappings: string } };
      return entry.map ? decodeMappings(entry.map.mappings) : null;
    } catch {
      return null;
    }
  }

  /** Source path -> cache entries, from each entry's `"sources":[...]` (read once). */
  private buildIndex(): Map<string, Array<{ file: string; mtime: number }>> {
    if (this.index) return this.index;
    this.index = new Map();
    let files: string[] = [];
    try {
      files = readdirSync(this.cacheDir);
    } catch {
      return this.index;
    }
    for (const name of files) {
      const file = path.join(this.cacheDir, name);
      try {
        const text = readFileSync(file, 'utf8');
        const m = /"sources":\["([^"]+)"\]/.exec(text.slice(-2000));
        if (!m) continue;
        const list = this.index.get(m[1]!) ?? [];
        list.push({ file, mtime: statSync(file).mtimeMs });
        this.index.set(m[1]!, list);
      } catch {
        // an entry being written or removed
      }
    }
    return this.index;
  }
}
