// How one scanner's finding merges into an agent's `observed.discovery`: that scanner's
// evidence and facts are replaced (a rescan says what is true now), the other scanners' kept.
// Pure and bounded: at most MAX_EVIDENCE_PER_SCANNER items per scanner.
import { MAX_EVIDENCE_PER_SCANNER, SCANNERS, type AgentDiscovery, type Evidence, type ScannerName } from '../../../schemas/discovery.ts';

export interface Finding {
  scanner: ScannerName;
  scanId: string;
  evidence: Evidence[];
  facts: Record<string, unknown>;
}

export function mergeDiscovery(previous: AgentDiscovery | undefined, finding: Finding, now: Date): AgentDiscovery {
  const at = now.toISOString();
  const scanners = new Set([...(previous?.scanners ?? []), finding.scanner]);
  const kept = (previous?.evidence ?? []).filter((e) => e.scanner !== finding.scanner);
  return {
    scanners: SCANNERS.filter((s) => scanners.has(s)),
    first_seen_at: previous?.first_seen_at ?? at,
    last_seen_at: at,
    last_scan_id: finding.scanId,
    evidence: [...kept, ...finding.evidence.slice(0, MAX_EVIDENCE_PER_SCANNER)],
    facts: { ...(previous?.facts ?? {}), [finding.scanner]: finding.facts },
  };
}

/**
 * Picks at most `max` items so every kind is represented: round-robin over kinds in the
 * given priority order (the framework line matters more than the tenth PII hint).
 */
export function pickEvidence<T extends { kind: string }>(items: readonly T[], priority: readonly string[], max = MAX_EVIDENCE_PER_SCANNER): T[] {
  const byKind = new Map<string, T[]>();
  for (const item of items) {
    const list = byKind.get(item.kind) ?? [];
    list.push(item);
    byKind.set(item.kind, list);
  }
  const kinds = [...byKind.keys()].sort((a, b) => rank(priority, a) - rank(priority, b));
  const picked: T[] = [];
  for (let round = 0; picked.length < max; round += 1) {
    let added = false;
    for (const kind of kinds) {
      const item = byKind.get(kind)![round];
      if (item && picked.length < max) {
        picked.push(item);
        added = true;
      }
    }
    if (!added) break;
  }
  // Back in the scanner's order (file, line), which is how a reader follows it.
  const order = new Map(items.map((item, i) => [item, i]));
  return picked.sort((a, b) => order.get(a)! - order.get(b)!);
}

const rank = (priority: readonly string[], kind: string): number => {
  const i = priority.indexOf(kind);
  return i === -1 ? priority.length : i;
};
