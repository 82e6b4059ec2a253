// Evidence for the heatmap's missed target: engine time of the shipped heatmap query against
// variants that change one thing each, on scratch copies of check_results_per_day inside a
// benchmark data folder (dropped at the end; the product's DDL is not touched).
//
//   npx tsx bench/heatmap-experiments.ts --data-dir checks-100m [--runs 15]
//
// Variants: A shipped query; B one GROUP BY level (severity by any(), valid while a check's
// severity never changes); C the shipped query on a copy sorted by (day, agent_id, check_id,
// severity), i.e. what a projection or that ORDER BY would give; D the shipped query on a copy
// merged to one row per key (OPTIMIZE FINAL, the state background merges converge to);
// E C and D together; F the rows the API has to turn into JSON (FORMAT Null vs JSONEachRow).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { dayWindow } from '../lib/analytics/time.ts';
import { MANIFEST, type Manifest } from './bulk-generate.ts';
import { flagNumber, flagString, parseFlags } from './lib/args.ts';
import { countLabel, dataDirFor } from './lib/bench-data.ts';
import { withBenchLock } from './lib/lock.ts';
import { describeMachine, machineMarkdown } from './lib/machine.ts';
import { commandLine, fmt, percentiles, stamp, writeResults } from './lib/results.ts';

const SHIPPED = (table: string, format = 'JSONEachRow') => `SELECT agent_id, check_id, argMax(sev, (last_day, runs)) AS severity,
       sum(runs) AS total_runs, sum(passed) AS passed_runs
FROM (SELECT agent_id, check_id, severity AS sev, max(day) AS last_day, sum(total_runs) AS runs, sum(passed_runs) AS passed
      FROM ${table} WHERE day BETWEEN {from:Date} AND {to:Date} GROUP BY agent_id, check_id, sev)
GROUP BY agent_id, check_id
HAVING {severity:String} = 'ALL' OR severity = {severity:String}
ORDER BY agent_id, check_id FORMAT ${format}`;

const ONE_LEVEL = `SELECT agent_id, check_id, any(severity) AS severity, sum(total_runs) AS total_runs, sum(passed_runs) AS passed_runs
FROM check_results_per_day WHERE day BETWEEN {from:Date} AND {to:Date}
GROUP BY agent_id, check_id ORDER BY agent_id, check_id FORMAT JSONEachRow`;

const COPY = (name: string, orderBy: string) => `CREATE TABLE ${name} AS check_results_per_day
ENGINE = SummingMergeTree((total_runs, passed_runs)) PARTITION BY toYYYYMM(day) ORDER BY (${orderBy})`;

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const dataDir = dataDirFor(flagString(flags, 'data-dir', 'checks-100m'));
  const runs = flagNumber(flags, 'runs', 15);
  const manifest = JSON.parse(readFileSync(path.join(dataDir, MANIFEST), 'utf8')) as Manifest;
  const machine = describeMachine();
  const { Session } = await import('chdb');
  const s = new Session(path.join(dataDir, 'chdb'), { connectionArgs: ['--output_format_json_quote_64bit_integers=0'] });
  const w = dayWindow(new Date(), 30);
  const params = { from: w.from, to: w.to, severity: 'ALL' };
  const rows: Array<{ variant: string; rows_to_read: number; result_rows: number; engine: ReturnType<typeof percentiles> }> = [];
  try {
    await s.queryAsync('USE agent_ops');
    await withBenchLock('heatmap experiments', async () => {
      await s.queryAsync('DROP TABLE IF EXISTS bench_crpd_by_day');
      await s.queryAsync('DROP TABLE IF EXISTS bench_crpd_merged');
      await s.queryAsync('DROP TABLE IF EXISTS bench_crpd_by_day_merged');
      await s.queryAsync(COPY('bench_crpd_by_day', 'day, agent_id, check_id, severity'));
      await s.queryAsync(COPY('bench_crpd_merged', 'agent_id, day, check_id, severity'));
      await s.queryAsync(COPY('bench_crpd_by_day_merged', 'day, agent_id, check_id, severity'));
      // optimize_on_insert = 0: C keeps every row of the view's table (only re-sorted); D and E
      // are then merged to one row per key.
      for (const t of ['bench_crpd_by_day', 'bench_crpd_merged', 'bench_crpd_by_day_merged']) {
        await s.queryAsync(`INSERT INTO ${t} SELECT * FROM check_results_per_day SETTINGS optimize_on_insert = 0`);
      }
      await s.queryAsync('OPTIMIZE TABLE bench_crpd_merged FINAL');
      await s.queryAsync('OPTIMIZE TABLE bench_crpd_by_day_merged FINAL');
      const variants: Array<[string, string]> = [
        ['A shipped query, check_results_per_day as it is', SHIPPED('check_results_per_day')],
        ['B one GROUP BY level (any(severity))', ONE_LEVEL],
        ['C shipped query, copy ORDER BY (day, agent_id, …)', SHIPPED('bench_crpd_by_day')],
        ['D shipped query, copy merged to one row per key', SHIPPED('bench_crpd_merged')],
        ['E C + D: ORDER BY day first and merged', SHIPPED('bench_crpd_by_day_merged')],
        ['F shipped query, FORMAT Null (no JSON output)', SHIPPED('check_results_per_day', 'Null')],
      ];
      for (const [variant, sql] of variants) {
        const times: number[] = [];
        let resultRows = 0;
        for (let i = 0; i < runs + 2; i++) {
          const r = await s.queryBindAsync(sql, params);
          if (i >= 2) times.push(r.elapsed * 1000);
          resultRows = r.rowsRead;
        }
        const est = (await s.queryBindAsync(`EXPLAIN ESTIMATE ${sql.replace(/ FORMAT \w+$/, '')}`, params, { format: 'JSONEachRow' })).text();
        const toRead = est.split('\n').filter(Boolean).reduce((a, l) => a + Number((JSON.parse(l) as { rows: number }).rows), 0);
        rows.push({ variant, rows_to_read: toRead, result_rows: resultRows, engine: percentiles(times) });
        console.error(`[heatmap] ${variant}: ${JSON.stringify(percentiles(times))} to read ${toRead}`);
      }
      const sizes = (await s.queryAsync(
        `SELECT table, sum(rows) AS rows, count() AS parts FROM system.parts WHERE database = 'agent_ops' AND active
         AND (table LIKE 'bench_crpd%' OR table = 'check_results_per_day') GROUP BY table ORDER BY table`, { format: 'JSONEachRow' })).text();
      console.error(`[heatmap] tables: ${sizes}`);
    });
  } finally {
    for (const t of ['bench_crpd_by_day', 'bench_crpd_merged', 'bench_crpd_by_day_merged']) await s.queryAsync(`DROP TABLE IF EXISTS ${t}`).catch(() => undefined);
    s.close();
  }
  const md = [
    `# Heatmap experiments, ${countLabel(manifest.checks)} check results`, '', '## Machine', machineMarkdown(machine), '', '## Command', '```', commandLine(), '```', '',
    `Heatmap of 30 days (${w.from} to ${w.to}), every agent, on a bare chDB session; ${runs} timed runs after 2 warm-up runs. ` +
      'Engine time as chDB reports it (query plus output formatting). Rows to read: EXPLAIN ESTIMATE.',
    '', '| variant | rows to read | result rows | p50 ms | p95 ms |', '|---|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.variant} | ${fmt(r.rows_to_read, 0)} | ${fmt(r.result_rows, 0)} | ${fmt(r.engine.p50_ms)} | ${fmt(r.engine.p95_ms)} |`),
  ].join('\n');
  const files = writeResults(`heatmap-experiments-${countLabel(manifest.checks)}-${stamp()}`, { machine, command: commandLine(), window: w, runs, rows }, md);
  console.error(`[heatmap] wrote ${files.join(', ')}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
