// Describes the machine a benchmark ran on, for the header of every results file: figures
// from different machines (or from a shared one) are not comparable without it.
import { readFileSync } from 'node:fs';
import os from 'node:os';

export interface MachineInfo {
  date: string;
  cpu_model: string;
  cores: number;
  memory_gib: number;
  node: string;
  kernel: string;
  os: string;
  /** 1-minute load average when described: above 0 means others were using the machine. */
  load_avg_1m: number;
}

export function describeMachine(now = new Date()): MachineInfo {
  const cpus = os.cpus();
  return {
    date: now.toISOString(),
    cpu_model: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memory_gib: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    kernel: `${os.type()} ${os.release()}`,
    os: osName(),
    load_avg_1m: Math.round(os.loadavg()[0]! * 100) / 100,
  };
}

function osName(): string {
  try {
    const m = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'));
    return m?.[1] ?? os.platform();
  } catch {
    return os.platform();
  }
}

/** Markdown lines for a results file. */
export function machineMarkdown(m: MachineInfo): string {
  return [
    `- Date: ${m.date}`,
    `- CPU: ${m.cpu_model}, ${m.cores} cores; memory ${m.memory_gib} GiB`,
    `- ${m.os}, ${m.kernel}, Node ${m.node}`,
    `- Load average (1 min) before the run: ${m.load_avg_1m}`,
  ].join('\n');
}

if (process.argv[1]?.endsWith('machine.ts')) console.log(JSON.stringify(describeMachine(), null, 2));
