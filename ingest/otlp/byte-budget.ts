// A bound on the bytes of OTLP requests this process holds at once (decoded payloads waiting
// for their durable write). Past it the receiver answers 429 with Retry-After, which exporters
// retry with backoff: load is shed before memory runs out, never by dropping accepted spans.
import { AppError } from '../../lib/errors.ts';

export class ByteBudget {
  private held = 0;

  constructor(private readonly limit: number) {}

  /**
   * Takes `bytes` and returns them for give(). A request larger than the whole budget is let
   * through when nothing else is held, so one big export can never be refused forever.
   */
  take(bytes: number): number {
    if (this.held > 0 && this.held + bytes > this.limit) {
      throw new AppError({
        code: 'otlp_overloaded',
        status: 429,
        detail: 'The receiver holds as much telemetry as it may; retry shortly.',
        retryAfterSeconds: 1,
      });
    }
    this.held += bytes;
    return bytes;
  }

  give(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }

  get inUse(): number {
    return this.held;
  }
}
