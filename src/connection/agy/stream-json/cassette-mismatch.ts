/**
 * The one stderr line by which a cassette replay (`agy-sdk/testing`, strict mode) says the SDK's stdin
 * differed from the recording; the transport turns it into a typed `CassetteMismatchError` for the turn.
 * Real agy never writes it.
 */
import { CassetteMismatchError } from '../../../errors.js';

/** The marker the replaying simulator writes, followed by `{"expected":…,"actual":…}`. */
export const CASSETTE_MISMATCH_MARKER = 'agy-sdk-cassette-mismatch:';

/** The mismatch a replay reported on stderr, if any. */
export function mismatchFromStderr(lines: readonly string[]): CassetteMismatchError | undefined {
  for (const line of lines) {
    if (!line.startsWith(CASSETTE_MISMATCH_MARKER)) continue;
    try {
      const detail = JSON.parse(line.slice(CASSETTE_MISMATCH_MARKER.length)) as {
        expected?: unknown;
        actual?: unknown;
      };
      return new CassetteMismatchError(String(detail.expected), String(detail.actual));
    } catch {
      return new CassetteMismatchError('(unreadable)', line);
    }
  }
  return undefined;
}
