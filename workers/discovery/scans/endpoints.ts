// `endpoints` scanner: probes the endpoint_url of every agent that has one (reachability, TLS
// validity, each probe bounded by a timeout) and stores probe_reachable / probe_tls_valid, which
// recomputes the agent's risk and its tls_invalid discrepancy.
import { recordObservations } from '../../../lib/registry/store.ts';
import { probeEndpoints } from '../endpoint-prober.ts';
import type { Scanner } from './tally.ts';

/** A bound on one scan's work; an instance has far fewer agents than this (the agent limit). */
const MAX_ENDPOINTS = 10_000;
const MAX_PROBES_SHOWN = 500;

interface Target {
  id: string;
  external_id: string;
  name: string;
  framework: string;
  endpoint_url: string;
}

export const endpointsScanner: Scanner = async (ctx) => {
  const { rows } = await ctx.db.query<Target>(
    `SELECT id, external_id, name, framework, endpoint_url FROM agents WHERE endpoint_url IS NOT NULL ORDER BY id LIMIT $1`,
    [MAX_ENDPOINTS],
  );
  ctx.tally.details.endpoints = rows.length;
  if (rows.length === 0) return { skipped: 'no_agent_has_an_endpoint_url' };
  const probes = await probeEndpoints(
    rows.map((r) => r.endpoint_url),
    { timeoutMs: ctx.options.probeTimeoutMs, concurrency: ctx.options.probeConcurrency },
  );
  const shown: unknown[] = [];
  let reachable = 0;
  let tlsInvalid = 0;
  for (const [i, target] of rows.entries()) {
    if (ctx.signal.aborted) return;
    const probe = probes[i]!;
    if (probe.reachable) reachable += 1;
    if (probe.tls_valid === false) tlsInvalid += 1;
    if (shown.length < MAX_PROBES_SHOWN) shown.push({ agent_id: target.id, ...probe });
    // The URL may have changed while we probed: the result describes the old one, so skip it.
    const current = await ctx.db.query('SELECT 1 FROM agents WHERE id = $1 AND endpoint_url = $2', [target.id, target.endpoint_url]);
    if (current.rowCount === 0) continue;
    const agent = await recordObservations(ctx.db, target.id, { probe: { reachable: probe.reachable, tlsValid: probe.tls_valid } });
    if (agent) await ctx.tally.touched({ agent_id: agent.agent_id, external_id: agent.external_id, name: agent.name, framework: agent.framework });
  }
  ctx.tally.details.reachable = reachable;
  ctx.tally.details.unreachable = rows.length - reachable;
  ctx.tally.details.tls_invalid = tlsInvalid;
  ctx.tally.details.probes = shown;
};
