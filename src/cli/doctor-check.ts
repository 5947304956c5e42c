/** The shape of one `agy-sdk doctor` check, shared by the checks and the table renderer. */

/** One check's outcome. `warn` does not fail the command; `fail` does. */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

/** One row of the report. */
export interface DoctorCheck {
  /** Stable id, for scripts. */
  id: string;
  /** What was checked. */
  title: string;
  /** The outcome. */
  status: CheckStatus;
  /** What was found. */
  detail: string;
  /** How to fix it, for `warn` and `fail`. */
  fix?: string;
}
