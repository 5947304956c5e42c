/**
 * Which agy builds the SDK supports and tests: one release line per simulator profile
 * (docs/reference/versions.md#supported-versions). A build on a line newer than the newest listed here is not
 * refused: it is "newer than tested", and the drift check names what it writes that the SDK has not seen
 * (docs/reference/versions.md#what-a-newer-build-gets).
 */

/** One supported release line. */
export interface AgyReleaseLine {
  /** `major.minor`, e.g. `1.3`. */
  readonly line: string;
  /** The build of this line the simulator imitates in the tests. */
  readonly tested: string;
  /** `captures`: real output of the line is checked in; `description`: only what others wrote about it. */
  readonly evidence: 'captures' | 'description';
}

/** The supported lines, oldest first; stream-json starts at 1.1.8. */
export const SUPPORTED_AGY_LINES: readonly AgyReleaseLine[] = [
  { line: '1.1', tested: '1.1.18', evidence: 'captures' },
  { line: '1.2', tested: '1.2.17', evidence: 'captures' },
  { line: '1.3', tested: '1.3.1', evidence: 'captures' },
  { line: '1.5', tested: '1.5.0', evidence: 'description' },
];

/** `1.2.17` → [1, 2, 17]; missing or non-numeric parts count as 0. */
function parts(version: string): number[] {
  return version.split('.').map((part) => Number.parseInt(part, 10) || 0);
}

/** The newest supported line (`major.minor`). */
export function newestTestedLine(): AgyReleaseLine {
  return SUPPORTED_AGY_LINES[SUPPORTED_AGY_LINES.length - 1] as AgyReleaseLine;
}

/** Whether `version` belongs to a release line newer than every supported one (e.g. 1.6.0, 2.0.0). */
export function newerThanTested(version: string): boolean {
  const [major = 0, minor = 0] = parts(version);
  const [newestMajor = 0, newestMinor = 0] = parts(newestTestedLine().line);
  return major !== newestMajor ? major > newestMajor : minor > newestMinor;
}
