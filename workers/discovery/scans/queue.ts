// The workers' side of the discovery_scans table: claim the oldest queued scan (SKIP LOCKED, so
// several workers processes never run one scan twice), record progress with a heartbeat, finish,
// and put back scans whose process died (heartbeat too old) or is stopping.
import type { Database, Queryable } from '../../../lib/postgres/database.ts';
import type { ScanKind, ScanStatus, ScannerResult } from '../../../schemas/discovery.ts';

export const SCAN_QUEUED_CHANNEL = 'discovery_scan_queued';

export interface ClaimedScan {
  id: string;
  scanner: ScanKind;
  attempts: number;
}

export interface ScanFigures {
  results: Record<string, ScannerResult>;
  found: number;
  created: number;
  updated: number;
  not_created: number;
}

/** The oldest queued scan, now running and owned by `worker`; undefined when none is queued. */
export async function claimNextScan(db: Queryable, worker: string): Promise<ClaimedScan | undefined> {
  const { rows } = await db.query<ClaimedScan>(
    `UPDATE discovery_scans
        SET status = 'running', running_at = now(), heartbeat_at = now(), claimed_by = $1, attempts = attempts + 1,
            results = '{}', found = 0, created = 0, updated = 0, not_created = 0, error = NULL
      WHERE id = (SELECT id FROM discovery_scans WHERE status = 'queued' ORDER BY started_at, id FOR UPDATE SKIP LOCKED LIMIT 1)
      RETURNING id, scanner, attempts`,
    [worker],
  );
  return rows[0];
}

/** Stores progress and beats the heart. false: the scan is no longer ours (re-queued after a stall). */
export async function saveProgress(db: Queryable, id: string, worker: string, figures?: ScanFigures): Promise<boolean> {
  const { rowCount } = figures
    ? await db.query(
        `UPDATE discovery_scans SET heartbeat_at = now(), results = $3, found = $4, created = $5, updated = $6, not_created = $7
          WHERE id = $1 AND claimed_by = $2 AND status = 'running'`,
        [id, worker, JSON.stringify(figures.results), figures.found, figures.created, figures.updated, figures.not_created],
      )
    : await db.query(`UPDATE discovery_scans SET heartbeat_at = now() WHERE id = $1 AND claimed_by = $2 AND status = 'running'`, [id, worker]);
  return (rowCount ?? 0) > 0;
}

export async function finishScan(
  db: Queryable,
  id: string,
  worker: string,
  outcome: { status: Extract<ScanStatus, 'succeeded' | 'failed'>; error: string | null; figures: ScanFigures },
): Promise<boolean> {
  const f = outcome.figures;
  const { rowCount } = await db.query(
    `UPDATE discovery_scans SET status = $3, finished_at = now(), heartbeat_at = now(), error = $4,
            results = $5, found = $6, created = $7, updated = $8, not_created = $9
      WHERE id = $1 AND claimed_by = $2 AND status = 'running'`,
    [id, worker, outcome.status, outcome.error, JSON.stringify(f.results), f.found, f.created, f.updated, f.not_created],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * Puts a running scan back in the queue; when another scan of the same scanner is already
 * queued (it covers the same work), fails this one with `error` instead.
 */
async function requeueOrFail(tx: Queryable, id: string, error: string, extra = ''): Promise<'queued' | 'failed'> {
  const queued = await tx.query(
    `UPDATE discovery_scans s SET status = 'queued', running_at = NULL, heartbeat_at = NULL, claimed_by = NULL ${extra}
      WHERE s.id = $1 AND NOT EXISTS (SELECT 1 FROM discovery_scans q WHERE q.scanner = s.scanner AND q.status = 'queued')`,
    [id],
  );
  if ((queued.rowCount ?? 0) > 0) return 'queued';
  await tx.query(`UPDATE discovery_scans SET status = 'failed', finished_at = now(), error = $2 WHERE id = $1`, [id, error]);
  return 'failed';
}

/** A stopping worker hands its scan back without counting the attempt. */
export function releaseScan(db: Database, id: string, worker: string): Promise<'queued' | 'failed' | 'not_ours'> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query(`SELECT 1 FROM discovery_scans WHERE id = $1 AND claimed_by = $2 AND status = 'running' FOR UPDATE`, [id, worker]);
    if (rows.length === 0) return 'not_ours';
    return requeueOrFail(tx, id, 'The scan was interrupted by a shutdown; a newer queued scan covers it.', ', attempts = greatest(attempts - 1, 0)');
  });
}

/**
 * Scans whose heartbeat is older than `staleAfterMs` (their process died): re-queued, or failed
 * after `maxAttempts` so a scan that kills its worker cannot loop forever.
 */
export function requeueStaleScans(db: Database, staleAfterMs: number, maxAttempts: number): Promise<Array<{ id: string; outcome: 'queued' | 'failed' }>> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string; attempts: number }>(
      `SELECT id, attempts FROM discovery_scans
        WHERE status = 'running' AND heartbeat_at < now() - $1 * interval '1 millisecond'
        ORDER BY started_at FOR UPDATE SKIP LOCKED`,
      [staleAfterMs],
    );
    const out: Array<{ id: string; outcome: 'queued' | 'failed' }> = [];
    for (const row of rows) {
      if (row.attempts >= maxAttempts) {
        await tx.query(`UPDATE discovery_scans SET status = 'failed', finished_at = now(), error = $2 WHERE id = $1`, [
          row.id,
          `The workers process running this scan stopped responding ${row.attempts} times; the scan was given up.`,
        ]);
        out.push({ id: row.id, outcome: 'failed' });
      } else {
        const outcome = await requeueOrFail(tx, row.id, 'The workers process running this scan stopped responding; a newer queued scan covers it.');
        out.push({ id: row.id, outcome });
      }
    }
    return out;
  });
}
