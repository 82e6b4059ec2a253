// Access log lines are buffered and flushed in blocks: at tens of thousands of requests per
// second, one write per request would cost more than the request itself.
import type { AccessLogMode } from './server.ts';

export interface AccessLogEntry {
  method: string;
  path: string;
  status: number;
  ms: number;
  requestId: string;
  remote: string;
}

export class AccessLog {
  private buffer: string[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly mode: AccessLogMode,
    private readonly write: (text: string) => void = (text) => process.stdout.write(text),
    private readonly flushEveryMs = 200,
    private readonly maxBuffered = 512,
  ) {}

  record(entry: AccessLogEntry): void {
    if (this.mode === 'off' || (this.mode === 'errors' && entry.status < 400)) return;
    this.buffer.push(
      `{"t":"${new Date().toISOString()}","level":"info","msg":"request","method":"${entry.method}","path":${JSON.stringify(entry.path)},"status":${entry.status},"ms":${entry.ms.toFixed(2)},"request_id":"${entry.requestId}","remote":"${entry.remote}"}\n`,
    );
    if (this.buffer.length >= this.maxBuffered) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), this.flushEveryMs).unref();
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.length === 0) return;
    const text = this.buffer.join('');
    this.buffer = [];
    this.write(text);
  }
}
