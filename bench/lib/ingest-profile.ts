// The profile pass of a scenario: a fresh service started with `node --cpu-prof`, one max row
// under the same load as the measured rows (holding the bench lock like every row), a graceful
// stop so V8 writes the profile, then the top self-time functions as Markdown next to it.
// Profiling slows the service; the row measured here is only context, never a result.
import { readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
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
  // V8 names the file CPU.<date>.<time>.<pid>.<tid>.<seq>.cpuprofile; take ours by pid and time.
  const written = readdirSync(o.dir)
    .filter((f) => f.endsWith('.cpuprofile') && f.includes(`.${svc.pid}.`))
    .map((f) => path.join(o.dir, f))
    .filter((f) => statSync(f).mtimeMs >= t0);
  if (written.length === 0) throw new Error(`no .cpuprofile from pid ${svc.pid} in ${o.dir}`);
  const profile = path.join(o.dir, `${o.name}-${new Date().toISOString().slice(0, 10)}.cpuprofile`);
  renameSync(written[0]!, profile);
  const summary = summarise(profile, 25);
  const markdown = summaryMarkdown(summary);
  writeFileSync(profile.replace(/\.cpuprofile$/, '.md'), `# CPU profile: ${o.name}\n\nService: \`${serviceCommand({ env: o.env, cpuProfDir: o.dir })}\`\n\n${markdown}\n`);
  return { profile, command: serviceCommand({ env: o.env, cpuProfDir: o.dir }), summary, markdown, row };
}
