/** The `doctor` table: one row per check, then a fix under each problem. Plain text, so it pastes into issues. */
import type { DoctorCheck } from '../doctor-check.js';

const MARK: Record<DoctorCheck['status'], string> = { ok: 'ok', warn: 'WARN', fail: 'FAIL', skip: 'skip' };

/** Renders `checks` as an aligned table. */
export function renderTable(checks: readonly DoctorCheck[]): string {
  const titleWidth = Math.max(5, ...checks.map((c) => c.title.length));
  const lines = [`${'check'.padEnd(titleWidth)}  status  detail`];
  for (const c of checks) {
    lines.push(`${c.title.padEnd(titleWidth)}  ${MARK[c.status].padEnd(6)}  ${c.detail}`);
    if (c.fix) lines.push(`${''.padEnd(titleWidth)}  ${''.padEnd(6)}  fix: ${c.fix}`);
  }
  const failed = checks.filter((c) => c.status === 'fail').length;
  const warned = checks.filter((c) => c.status === 'warn').length;
  lines.push(
    '',
    failed ? `${failed} problem(s) to fix.` : warned ? `ready (${warned} warning(s)).` : 'ready.',
  );
  return `${lines.join('\n')}\n`;
}
