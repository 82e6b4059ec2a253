// `node --import tsx bench/lib/count-rows.ts <chdb dir> <table>...`: prints {"table": rows, ...}
// for a stopped service's chDB folder. A process of its own because chDB binds one folder per
// process, and a benchmark counts several services' folders in turn.
import { Session } from 'chdb';

const [dir, ...tables] = process.argv.slice(2);
if (!dir || tables.length === 0) {
  console.error('usage: count-rows.ts <chdb dir> <table>...');
  process.exit(2);
}
const session = new Session(dir);
const out: Record<string, number> = {};
for (const table of tables) {
  if (!/^[a-z_]+$/.test(table)) throw new Error(`bad table name ${table}`);
  out[table] = Number(session.query(`SELECT count() FROM agent_ops.${table}`, 'CSV').trim());
}
session.close();
console.log(JSON.stringify(out));
