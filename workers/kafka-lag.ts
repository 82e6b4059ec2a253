// Consumer lag of the loader group: per partition, the log end offset minus the group's committed
// offset (or minus the log start when the group has committed nothing there yet). Read from the
// brokers every few seconds, so /health and /metrics answer from memory and show the whole
// group's lag, including partitions another worker process owns.
import type { Admin } from 'kafkajs';
import type { Logger } from '../lib/log.ts';

export interface PartitionLag {
  topic: string;
  partition: number;
  committed: number;
  end: number;
  lag: number;
}

export interface LagSnapshot {
  total: number;
  byTopic: Record<string, number>;
  partitions: PartitionLag[];
  checkedAt: Date;
}

export class LagMonitor {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private latest?: LagSnapshot;
  private lastError?: string;

  constructor(
    private readonly admin: Admin,
    private readonly groupId: string,
    private readonly topics: string[],
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  snapshot(): LagSnapshot | undefined {
    return this.latest;
  }

  error(): string | undefined {
    return this.lastError;
  }

  /** One read at a time; a slow broker skips ticks rather than piling them up. */
  refresh(): Promise<void> {
    this.running ??= this.read()
      .then((snapshot) => {
        this.latest = snapshot;
        this.lastError = undefined;
      })
      .catch((error) => {
        this.lastError = (error as Error).message;
        this.logger.debug('reading consumer lag failed', { error });
      })
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async read(): Promise<LagSnapshot> {
    const committed = await this.admin.fetchOffsets({ groupId: this.groupId, topics: this.topics });
    const partitions: PartitionLag[] = [];
    for (const topic of this.topics) {
      const ends = await this.admin.fetchTopicOffsets(topic);
      const group = committed.find((c) => c.topic === topic)?.partitions ?? [];
      for (const end of ends) {
        const offset = Number(group.find((g) => g.partition === end.partition)?.offset ?? -1);
        const from = offset >= 0 ? offset : Number(end.low);
        const high = Number(end.high);
        partitions.push({ topic, partition: end.partition, committed: offset, end: high, lag: Math.max(0, high - from) });
      }
    }
    const byTopic: Record<string, number> = {};
    for (const p of partitions) byTopic[p.topic] = (byTopic[p.topic] ?? 0) + p.lag;
    return { total: partitions.reduce((sum, p) => sum + p.lag, 0), byTopic, partitions, checkedAt: new Date() };
  }
}
