// The profile pass of a scenario: a fresh service started with `node --cpu-prof`, one max row
// under the same load as the measured rows (holding the bench lock like every row), a graceful
// stop so V8 writes the profile, then the top self-time functions as Markdown next to it.
// Profiling slows the service; the row measured here is only context, never a result.
import { readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { measureRow, type IngestRow, type RowSettings, type RowSpec } from './ingest-measure.ts';
import { freshDataDir, removeDataDir, serviceCommand, startService, type ServiceProcess } from './ingest-service.ts';
import { summarise, summaryMarkdown, type ProfileSummary } from './profile-summary.ts';

export interface ProfileResult {
  profile: string;
  command: string;
  summary: ProfileSummary;
  markdown: string;
  row: IngestRow;
}

export async function profileRun(o: {
  name: string;
  dir: string;
  env: Record<string, string>;
  set: RowSettings;
  spec: (svc: ServiceProcess) => Promise<Omit<RowSpec, 'mode' | 'label' | 'repeat'>>;
}): Promise<ProfileResult> {
  const dataDir = freshDataDir(`${o.name}-profile`);
  const t0 = Date.now();
  const svc = await startService({ name: 'service', dataDir, env: o.env, cpuProfDir: o.dir });
  let row: IngestRow;
  try {
    const spec = await o.spec(svc);
    row = await measureRow([{ name: 'service', pid: svc.pid }], { ...spec, label: 'max (profiled)', mode: 'max', repeat: 1 }, o.set);
  } finally {
    await svc.stop();
    removeDataDir(dataDir);
  }
  const command = serviceCommand({ env: o.env, cpuProfDir: o.dir });
  return { ...collectProfile(o.dir, svc.pid, t0, o.name, command), command, row };
}

/** Finds the main-thread profile `pid` wrote into `dir` since `t0`, names it `<name>-<date>`,
 * and writes its summary next to it. */
export function collectProfile(dir: string, pid: number, t0: number, name: string, command: string): { profile: string; summary: ProfileSummary; markdown: string } {
  // V8 names the file CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile. Thread 0 is the main
  // thread; tsx's module-loader thread writes one too, which says nothing about ingest.
  const written = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile') && f.includes(`.${pid}.`))
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).mtimeMs >= t0);
  const main = written.find((f) => path.basename(f).includes(`.${pid}.0.`));
  if (!main) throw new Error(`no main-thread .cpuprofile from pid ${pid} in ${dir}`);
  for (const f of written) if (f !== main) rmSync(f);
  const profile = path.join(dir, `${name}-${new Date().toISOString().slice(0, 10)}.cpuprofile`);
  renameSync(main, profile);
  const summary = summarise(profile, 25);
  const markdown = summaryMarkdown(summary);
  writeFileSync(profile.replace(/\.cpuprofile$/, '.md'), `# CPU profile: ${name}\n\nProcess: \`${command}\`\n\n${markdown}\n`);
  return { profile, summary, markdown };
}
