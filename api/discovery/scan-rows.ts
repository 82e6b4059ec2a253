// The api tier's side of the discovery_scans table: queue a scan, read one, list recent ones,
// and turn a row into the answer. Running scans is the workers' side (workers/discovery/scans).
import type { Queryable } from '../../lib/postgres/database.ts';
import { SCANNERS, type Scan, type ScanKind, type ScanStatus, type ScannerName, type ScannerResult } from '../../schemas/discovery.ts';

interface ScanRow {
  id: string;
  scanner: ScanKind;
  status: ScanStatus;
  requested_by: string | null;
  started_at: Date;
  running_at: Date | null;
  finished_at: Date | null;
  found: number;
  created: number;
  updated: number;
  not_created: number;
  results: Record<string, ScannerResult> | null;
  error: string | null;
}

const COLUMNS = `id, scanner, status, requested_by, started_at, running_at, finished_at, found, created, updated,
  not_created, results, error`;

/**
 * Queues a scan and returns it; when a scan of the same scanner is still queued (not started),
 * returns that one instead, since it will see everything the new one would.
 */
export async function queueScan(db: Queryable, scanner: ScanKind, requestedBy: string | null): Promise<{ scan: Scan; queued: boolean }> {
  // A queued scan can be claimed between the failed insert and the read: try again then.
  for (let attempt = 0; attempt < 5; attempt += 1) {
    // requested_by through a subselect: a still-valid token of a removed user records null, not a 500.
    const inserted = await db.query<ScanRow>(
      `INSERT INTO discovery_scans (scanner, requested_by) VALUES ($1, (SELECT id FROM users WHERE id = $2::uuid))
       ON CONFLICT (scanner) WHERE status = 'queued' DO NOTHING RETURNING ${COLUMNS}`,
      [scanner, requestedBy],
    );
    if (inserted.rows[0]) return { scan: toScan(inserted.rows[0]), queued: true };
    const waiting = await db.query<ScanRow>(`SELECT ${COLUMNS} FROM discovery_scans WHERE scanner = $1 AND status = 'queued'`, [scanner]);
    if (waiting.rows[0]) return { scan: toScan(waiting.rows[0]), queued: false };
  }
  throw new Error('could not queue a discovery scan: the queued scan kept changing');
}

export async function findScan(db: Queryable, id: string): Promise<Scan | undefined> {
  const { rows } = await db.query<ScanRow>(`SELECT ${COLUMNS} FROM discovery_scans WHERE id = $1`, [id]);
  return rows[0] ? toScan(rows[0]) : undefined;
}

/** Newest first. */
export async function listScans(db: Queryable, limit: number): Promise<Scan[]> {
  const { rows } = await db.query<ScanRow>(`SELECT ${COLUMNS} FROM discovery_scans ORDER BY started_at DESC, id DESC LIMIT $1`, [limit]);
  return rows.map(toScan);
}

const pending = (): ScannerResult => ({
  status: 'pending',
  started_at: null,
  finished_at: null,
  found: 0,
  created: 0,
  updated: 0,
  not_created: 0,
  agents: [],
  agents_truncated: false,
  details: {},
  error: null,
});

export function toScan(row: ScanRow): Scan {
  const planned: ScannerName[] = row.scanner === 'all' ? [...SCANNERS] : [row.scanner];
  // Every planned scanner is listed from the start, so a client can show what is still to come.
  const results: Record<string, ScannerResult> = {};
  for (const name of planned) results[name] = row.results?.[name] ?? pending();
  const done = planned.filter((n) => ['succeeded', 'failed', 'skipped'].includes(results[n]!.status)).length;
  const current = planned.find((n) => results[n]!.status === 'running') ?? null;
  return {
    id: row.id,
    scanner: row.scanner,
    status: row.status,
    requested_by: row.requested_by,
    started_at: row.started_at.toISOString(),
    running_at: row.running_at ? row.running_at.toISOString() : null,
    finished_at: row.finished_at ? row.finished_at.toISOString() : null,
    found: row.found,
    created: row.created,
    updated: row.updated,
    not_created: row.not_created,
    progress: { scanners_total: planned.length, scanners_done: done, current },
    results,
    error: row.error,
  };
}
