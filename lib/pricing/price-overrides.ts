// The operator's price overrides and additions (table model_prices), written by the setup
// script and the admin API, read by ingest's cost context. USD per million tokens.
import type { Queryable } from '../postgres/database.ts';
import { createPricer, type PriceEntry } from './pricing.ts';

/** The provider label of an override given without one. */
export const CUSTOM_PROVIDER = 'custom';

export async function listPriceOverrides(db: Queryable): Promise<PriceEntry[]> {
  const { rows } = await db.query<PriceEntry>(
    `SELECT model, coalesce(provider, '${CUSTOM_PROVIDER}') AS provider, input_per_million::float8 AS input,
            output_per_million::float8 AS output, cached_input_per_million::float8 AS cached_input
       FROM model_prices ORDER BY model`,
  );
  return rows;
}

/** Validates like the pricer will (422 naming the field), then stores; true when it was new. */
export async function upsertPriceOverride(db: Queryable, entry: PriceEntry): Promise<boolean> {
  const model = entry.model.trim().toLowerCase();
  const provider = entry.provider.trim().toLowerCase() || CUSTOM_PROVIDER;
  createPricer([{ ...entry, model, provider }]);
  const { rows } = await db.query<{ inserted: boolean }>(
    `INSERT INTO model_prices (model, provider, input_per_million, output_per_million, cached_input_per_million)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (model) DO UPDATE SET provider = excluded.provider, input_per_million = excluded.input_per_million,
       output_per_million = excluded.output_per_million, cached_input_per_million = excluded.cached_input_per_million, updated_at = now()
     RETURNING (xmax = 0) AS inserted`,
    [model, provider, entry.input, entry.output, entry.cached_input],
  );
  return rows[0]!.inserted;
}

export async function deletePriceOverride(db: Queryable, model: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM model_prices WHERE model = $1', [model.trim().toLowerCase()]);
  return (rowCount ?? 0) > 0;
}

/** `MODEL=INPUT,OUTPUT[,CACHED]` (USD per million tokens), the setup script's --price form. */
export function parsePriceFlag(text: string): PriceEntry | undefined {
  const match = /^([^=\s]{1,200})=(\d+(?:\.\d+)?),(\d+(?:\.\d+)?)(?:,(\d+(?:\.\d+)?))?$/.exec(text.trim());
  if (!match) return undefined;
  return { model: match[1]!.toLowerCase(), provider: CUSTOM_PROVIDER, input: Number(match[2]), output: Number(match[3]), cached_input: match[4] === undefined ? null : Number(match[4]) };
}
