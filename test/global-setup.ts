// Starts the real stores the suite needs once per run and hands their addresses to the test
// files through vitest's provide/inject. Each test file then makes its own database (and, for
// Kafka, its own topic prefix).
import { readFile } from 'node:fs/promises';
import type { TestProject } from 'vitest/node';
import { ensureKafkaBroker, type KafkaBroker } from './helpers/kafka-broker.ts';
import { startTestPostgres } from './helpers/postgres-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    /** The run's Kafka broker; empty when no test file of this run asks for it. */
    kafkaBrokers: string[];
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const [postgres, kafka] = await Promise.all([
    startTestPostgres(),
    (await runUsesKafka(project)) ? ensureKafkaBroker() : Promise.resolve<KafkaBroker | undefined>(undefined),
  ]);
  project.provide('postgresUrl', postgres.url);
  project.provide('kafkaBrokers', kafka?.brokers ?? []);
  return async () => {
    await Promise.all([kafka?.stop(), postgres.stop()]);
  };
}

/**
 * The broker costs a JVM and seconds to start: only runs holding a test file that injects
 * `kafkaBrokers` get one. The run's file filters live on the Vitest instance but are not public
 * API; without them every test file counts, which starts the broker when in doubt.
 */
async function runUsesKafka(project: TestProject): Promise<boolean> {
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  const specs = await project.vitest.globTestSpecifications(filters);
  const files = [...new Set(specs.map((s) => s.moduleId))];
  const sources = await Promise.all(files.map((file) => readFile(file, 'utf8').catch(() => '')));
  return sources.some((source) => source.includes("inject('kafkaBrokers')"));
}
