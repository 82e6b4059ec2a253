// Tiny argv/env helpers shared by the benchmark scripts; benchmarks take few options, so a
// parser library would be more weight than help.

/** Port from the first bare argv word, else $PORT, else 0 (the kernel picks a free port). */
export function portFromArgs(argv: string[] = process.argv.slice(2), env = process.env): number {
  const raw = argv.find((a) => /^\d+$/.test(a)) ?? env.PORT ?? '0';
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`bad port: ${raw}`);
  return port;
}

/** `--name value` / `--name=value` options; repeated names keep every value, in order. */
export function parseFlags(argv: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
    let value = eq > 0 ? a.slice(eq + 1) : 'true';
    if (eq < 0 && i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) value = argv[++i]!;
    out.set(name, [...(out.get(name) ?? []), value]);
  }
  return out;
}

export function flagNumber(flags: Map<string, string[]>, name: string, fallback: number): number {
  const raw = flags.get(name)?.at(-1);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new Error(`--${name} must be a number, got ${raw}`);
  return n;
}

export function flagString(flags: Map<string, string[]>, name: string, fallback: string): string {
  return flags.get(name)?.at(-1) ?? fallback;
}
