/**
 * Comparing a replayed stdin line with the recorded one. The recording is sanitized, this session is not, so
 * each sanitizer placeholder (`<workspace>`, `<secret:NAME>`, …) and each rewritten conversation id in the
 * recording matches anything in its place.
 */
export { CASSETTE_MISMATCH_MARKER } from '../../connection/agy/stream-json/cassette-mismatch.js';

const PLACEHOLDER = /<[a-z][a-z0-9:_-]*>|00000000-0000-4000-8000-\d{12}/gi;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether `actual` is what `recorded` says, placeholders matching any text. */
export function stdinMatches(recorded: string, actual: string): boolean {
  if (recorded === actual) return true;
  let pattern = '';
  let last = 0;
  for (const m of recorded.matchAll(PLACEHOLDER)) {
    pattern += `${escapeRegExp(recorded.slice(last, m.index))}.*?`;
    last = m.index + m[0].length;
  }
  if (last === 0) return false;
  pattern += escapeRegExp(recorded.slice(last));
  return new RegExp(`^${pattern}$`, 's').test(actual);
}
