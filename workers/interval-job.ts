// A background component that runs one pass every `intervalMs`: never two passes at once, a
// failed pass logged and retried at the next tick, and stop() waiting for a pass in flight so
// the stores are not closed under it.
import type { Logger } from '../lib/log.ts';
import type { BackgroundComponent } from './workers-tier.ts';

export function intervalJob(name: string, intervalMs: number, pass: () => Promise<unknown>, logger: Logger): BackgroundComponent {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  return {
    name,
    async start() {
      timer = setInterval(() => {
        running ??= pass()
          .catch((error) => logger.warn(`${name} pass failed`, { error }))
          .finally(() => (running = undefined));
      }, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
