// Runs one claimed scan: its scanners in order, each with its own tally, progress stored as it
// goes (throttled) and at every scanner boundary. A failing scanner fails the scan but not the
// scanners after it: `all` still reports what the others found.
import type { AnalyticsStore } from '../../../lib/analytics/store.ts';
import { AppError } from '../../../lib/errors.ts';
import type { Logger } from '../../../lib/log.ts';
import type { Database } from '../../../lib/postgres/database.ts';
import { SCANNERS, type ScannerName, type ScannerResult } from '../../../schemas/discovery.ts';
import { codeScanner } from './code.ts';
import { endpointsScanner } from './endpoints.ts';
import { ledgerScanner } from './ledger.ts';
import { finishScan, saveProgress, type ClaimedScan, type ScanFigures } from './queue.ts';
import { ScannerTally, type ScanRunOptions, type Scanner } from './tally.ts';
import { telemetryScanner } from './telemetry.ts';

const IMPLEMENTATIONS: Record<ScannerName, Scanner> = {
  telemetry: telemetryScanner,
  ledger: ledgerScanner,
  code: codeScanner,
  endpoints: endpointsScanner,
};

const PROGRESS_EVERY_MS = 500;

export interface RunScanDeps {
  db: Database;
  analytics: AnalyticsStore;
  logger: Logger;
  worker: string;
  now(): Date;
  options: ScanRunOptions;
}

/** Thrown when the scan stopped being ours or the process is stopping; the runner hands it back. */
export class ScanInterrupted extends Error {}

export async function runScan(deps: RunScanDeps, scan: ClaimedScan, signal: AbortSignal): Promise<void> {
  const planned: ScannerName[] = scan.scanner === 'all' ? [...SCANNERS] : [scan.scanner];
  const results: Record<string, ScannerResult> = {};
  const figures = (): ScanFigures => {
    const sum = (key: 'found' | 'created' | 'updated' | 'not_created') => Object.values(results).reduce((n, r) => n + r[key], 0);
    return { results, found: sum('found'), created: sum('created'), updated: sum('updated'), not_created: sum('not_created') };
  };
  let lastSaved = 0;
  const save = async (force: boolean) => {
    if (!force && Date.now() - lastSaved < PROGRESS_EVERY_MS) return;
    lastSaved = Date.now();
    if (!(await saveProgress(deps.db, scan.id, deps.worker, figures()))) throw new ScanInterrupted('the scan was taken over');
  };

  for (const name of planned) {
    if (signal.aborted) throw new ScanInterrupted('stopping');
    const tally = new ScannerTally(deps.now(), () => save(false));
    results[name] = tally.result;
    await save(true);
    const log = deps.logger.child({ scan_id: scan.id, scanner: name });
    try {
      const outcome = await IMPLEMENTATIONS[name]({ ...deps, scanId: scan.id, scanner: name, signal, tally });
      if (signal.aborted) throw new ScanInterrupted('stopping');
      tally.finish(deps.now(), outcome);
    } catch (error) {
      if (error instanceof ScanInterrupted) throw error;
      log.error('discovery scanner failed', { error });
      // Answers carry no SQL or stack: an AppError's detail is written for clients, anything else is not.
      tally.fail(deps.now(), error instanceof AppError ? error.detail : 'The scanner failed unexpectedly; the workers log has the cause.');
    }
    await save(true);
    log.info('discovery scanner finished', { status: tally.result.status, found: tally.result.found, created: tally.result.created });
  }

  const failed = planned.filter((n) => results[n]!.status === 'failed');
  const error = failed.length > 0 ? `Scanner ${failed.join(', ')} failed: ${failed.map((n) => results[n]!.error).join('; ')}` : null;
  const finished = await finishScan(deps.db, scan.id, deps.worker, { status: failed.length > 0 ? 'failed' : 'succeeded', error, figures: figures() });
  if (!finished) throw new ScanInterrupted('the scan was taken over');
}
