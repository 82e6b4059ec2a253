// Starts the real stores the suite needs once per run and hands their addresses to the test
// files through vitest's provide/inject. Each test file then makes its own database.
import type { TestProject } from 'vitest/node';
import { startTestPostgres } from './helpers/postgres-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const postgres = await startTestPostgres();
  project.provide('postgresUrl', postgres.url);
  return async () => {
    await postgres.stop();
  };
}
