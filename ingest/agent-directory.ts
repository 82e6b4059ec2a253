// Which registry agent an event belongs to, answered from memory: the hot path makes no
// database round trip for a known agent. The directory loads every agent at start and then
// polls PostgreSQL for rows changed since the last poll (agents.updated_at), so a rename of
// external_id or a new department reaches ingest within `pollMs`. Only an unknown agent costs a
// database call (to register it or learn it was just created elsewhere).
import type { Logger } from '../lib/log.ts';
import type { Database } from '../lib/postgres/database.ts';

export interface DirectoryAgent {
  id: string;
  external_id: string;
  department: string | null;
  status: string;
}

interface AgentRow extends DirectoryAgent {
  updated_at: Date;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class AgentDirectory {
  private readonly byId = new Map<string, DirectoryAgent>();
  private readonly byExternalId = new Map<string, DirectoryAgent>();
  private lastChange = new Date(0);
  private timer?: NodeJS.Timeout;
  private polling?: Promise<void>;
  /** Ids looked up in PostgreSQL and not found, with when: asked again only after missTtlMs. */
  private readonly misses = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly pollMs = 1_000,
    private readonly missTtlMs = 5_000,
  ) {}

  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => {
      this.polling ??= this.poll()
        .catch((error) => this.logger.warn('agent directory poll failed', { error }))
        .finally(() => (this.polling = undefined));
    }, this.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.polling;
  }

  /** decisions §2: a uuid of a registry agent first, then an external_id. */
  resolve(textualId: string): DirectoryAgent | undefined {
    if (UUID.test(textualId)) {
      const agent = this.byId.get(textualId.toLowerCase());
      if (agent) return agent;
    }
    return this.byExternalId.get(textualId);
  }

  /**
   * Like resolve, but an id unknown to the cache is looked up in PostgreSQL once per missTtlMs:
   * an agent created a moment ago elsewhere (before the next poll) is found, while a stream of
   * events from an agent that is really unknown costs one query per id per missTtlMs, not per event.
   */
  async resolveFresh(textualId: string): Promise<DirectoryAgent | undefined> {
    const cached = this.resolve(textualId);
    if (cached) return cached;
    const missedAt = this.misses.get(textualId);
    if (missedAt !== undefined && Date.now() - missedAt < this.missTtlMs) return undefined;
    const byId = UUID.test(textualId);
    // decisions §2: a registry uuid first, then an external_id (false sorts before true).
    const { rows } = await this.db.query<AgentRow>(
      `SELECT id::text AS id, external_id, department, status, updated_at FROM agents
        WHERE ${byId ? 'id = $1::uuid OR ' : ''}external_id = $1 ORDER BY (external_id = $1) LIMIT 1`,
      [textualId],
    );
    const found = rows[0];
    if (!found) {
      if (this.misses.size > 100_000) this.misses.clear();
      this.misses.set(textualId, Date.now());
      return undefined;
    }
    this.misses.delete(textualId);
    this.remember(found);
    return this.resolve(textualId);
  }

  /** Puts an agent the caller just created or found in the database into the cache. */
  remember(agent: DirectoryAgent): void {
    const previous = this.byId.get(agent.id);
    if (previous && previous.external_id !== agent.external_id) this.byExternalId.delete(previous.external_id);
    const entry = { id: agent.id.toLowerCase(), external_id: agent.external_id, department: agent.department, status: agent.status };
    this.byId.set(entry.id, entry);
    this.byExternalId.set(entry.external_id, entry);
  }

  get size(): number {
    return this.byId.size;
  }

  /** Loads rows changed since the last poll. Overlaps by a second: clocks and commit order. */
  private async poll(): Promise<void> {
    const since = new Date(this.lastChange.getTime() - 1_000);
    const { rows } = await this.db.query<AgentRow>(
      `SELECT id::text AS id, external_id, department, status, updated_at
         FROM agents WHERE updated_at >= $1 ORDER BY updated_at`,
      [since],
    );
    for (const row of rows) {
      this.remember(row);
      if (row.updated_at > this.lastChange) this.lastChange = row.updated_at;
    }
  }
}
