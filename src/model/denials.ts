/**
 * Denials in words: who denied (`DeniedBy`) as a phrase, and a turn's denials as its one-line `errorMessage`.
 * One wording for the result, the logs and the CLI, so no message names agy for what the SDK decided.
 */
import type { DeniedAction, DeniedBy } from './turn-result.js';

/** `policy 'no_shell'`, `the user (asked by policy 'confirm')`, `agy`, …: who denied, as a phrase. */
export function describeDenier(by: DeniedBy): string {
  switch (by.kind) {
    case 'policy':
      return `policy '${by.name}'`;
    case 'user':
      return `the user (asked by policy '${by.policy}')`;
    case 'hook':
      return `hook '${by.name}'`;
    case 'config':
      return by.field;
    case 'budget':
      return `budget ${by.name}`;
    case 'agy':
      return "agy's permission check";
    case 'sdk':
      return 'the SDK';
  }
}

/** Who denied `d`: its `deniedBy`, else what its `source` says (agy, or the SDK). */
export function denierOf(d: DeniedAction): DeniedBy {
  return d.deniedBy ?? (d.source === 'sdk' ? { kind: 'sdk' } : { kind: 'agy' });
}

/**
 * A turn's denials in one line, each naming who denied it: `run_command denied by policy 'no_shell'; write_file
 * denied by agy's permission check`. A reason is added when it says more than who denied.
 */
export function describeDenials(denials: readonly DeniedAction[]): string {
  return denials
    .map((d) => {
      const what = d.source === 'sdk' ? d.action : (d.displayName ?? d.action);
      const reason = d.reason && !/^denied by /i.test(d.reason) ? ` (${d.reason})` : '';
      return `${what} denied by ${describeDenier(denierOf(d))}${reason}`;
    })
    .join('; ');
}
