/** Reading this machine's /proc in process tests (Linux). */
import { readdirSync, readFileSync } from 'node:fs';

/** Fields after the command name of /proc/<pid>/stat (index 0 is field 3, the state); undefined once gone. */
export function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** This process's children running the supervisor script (zombies included: they are not gone yet). */
export function supervisors(): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (Number(statFields(pid)?.[1]) !== process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('supervisor.js')) out.push(pid);
    } catch {
      // gone
    }
  }
  return out;
}
