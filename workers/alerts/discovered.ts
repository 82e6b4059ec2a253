// A new discovered agent handling PII (decisions §10): status DISCOVERED, contains_pii set (by a
// code scan, or declared later), created in the last 7 days. Once per agent: the key has no
// period because an agent is discovered once; approving it or clearing the flag ends the matter.
import { type AlertCandidate, type DetectionContext } from './types.ts';

export const NEW_AGENT_DAYS = 7;

interface Row {
  id: string;
  name: string;
  external_id: string;
  source: string;
  department: string | null;
  risk_level: string;
  risk_score: number;
  created_at: Date;
}

export async function detectDiscoveredPii(ctx: DetectionContext): Promise<AlertCandidate[]> {
  const { rows } = await ctx.db.query<Row>(
    `SELECT id::text AS id, name, external_id, source, department, risk_level, risk_score, created_at
       FROM agents
      WHERE status = 'DISCOVERED' AND contains_pii AND created_at >= $1::timestamptz - make_interval(days => $2)
      ORDER BY created_at`,
    [ctx.now, NEW_AGENT_DAYS],
  );
  return rows.map((a) => ({
    key: `discovered_pii:${a.id}`,
    kind: 'discovered_pii' as const,
    title: `New agent ${a.name} handles personal data and is not reviewed`,
    summary:
      `Discovery found agent ${a.name} (${a.external_id}) and it handles personal data (PII). ` +
      'It is not in the approved registry yet: review it (owner, purpose, human in the loop) or shut it down.',
    facts: [
      ['Agent', `${a.name} (${a.external_id})`],
      ['Found by', a.source],
      ['Department', a.department ?? '—'],
      ['Risk', `${a.risk_level} (score ${a.risk_score} of 100)`],
      ['Discovered at', new Date(a.created_at).toISOString()],
    ],
    details: { agent_id: a.id, name: a.name, external_id: a.external_id, source: a.source, created_at: new Date(a.created_at).toISOString() },
  }));
}
