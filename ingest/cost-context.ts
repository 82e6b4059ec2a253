// What pricing a cost needs, kept in memory and refreshed from PostgreSQL every few seconds:
// the display currency with its USD rate, and the price table with the operator's overrides.
// Each event is priced once, at ingest, and stores the price and rate it used, so a later
// change of either never rewrites history.
import type { Logger } from '../lib/log.ts';
import type { Database } from '../lib/postgres/database.ts';
import { listPriceOverrides } from '../lib/pricing/price-overrides.ts';
import { createPricer, type Pricer } from '../lib/pricing/pricing.ts';

export interface CostSnapshot {
  pricer: Pricer;
  currency: string;
  usdRate: number;
}

export class CostContext {
  private snapshot: CostSnapshot = { pricer: createPricer(), currency: 'USD', usdRate: 1 };
  private signature = '';
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly refreshMs = 2_000,
  ) {}

  get current(): CostSnapshot {
    return this.snapshot;
  }

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => this.refresh().catch((error) => this.logger.warn('price refresh failed', { error })), this.refreshMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
  }

  async refresh(): Promise<void> {
    const [settings, prices] = await Promise.all([
      this.db.query<{ display_currency: string; usd_rate: number }>('SELECT display_currency, usd_rate::float8 AS usd_rate FROM instance_settings WHERE id = 1'),
      listPriceOverrides(this.db),
    ]);
    const row = settings.rows[0]!;
    const signature = JSON.stringify([row, prices]);
    if (signature === this.signature) return;
    this.signature = signature;
    this.snapshot = { pricer: createPricer(prices), currency: row.display_currency.trim(), usdRate: row.usd_rate };
  }
}
