/**
 * Comparing a replayed stdin line with the recorded one. The recording is sanitized, this session is not, so
 * each sanitizer placeholder (`<workspace>`, `<secret:NAME>`, …) and each rewritten conversation id in the
 * recording matches anything in its place.
 */
export { CASSETTE_MISMATCH_MARKER } from '../../connection/agy/reader.js';

const PLACEHOLDER = /<[a-z][a-z0-9:_-]*>|00000000-0000-4000-8000-\d{12}/gi;

/**
 * Whether `actual` is what `recorded` says, placeholders matching any text (possibly empty).
 *
 * The recording is split at its placeholders into literal pieces, matched as a `*`-only glob: the first piece
 * must start `actual`, the last must end it, and each middle piece is found by `indexOf` after the previous one
 * (the leftmost match is always the right choice when every gap matches anything). A regex with a lazy `.*?`
 * per placeholder gives the same answer but backtracks exponentially on a near miss; this takes one pass per
 * piece, O(|actual| × |recorded|) at worst.
 */
export function stdinMatches(recorded: string, actual: string): boolean {
  if (recorded === actual) return true;
  const pieces: string[] = [];
  let last = 0;
  for (const m of recorded.matchAll(PLACEHOLDER)) {
    pieces.push(recorded.slice(last, m.index));
    last = m.index + m[0].length;
  }
  if (pieces.length === 0) return false;
  pieces.push(recorded.slice(last));
  const first = pieces[0]!;
  const final = pieces.at(-1)!;
  if (first.length + final.length > actual.length) return false;
  if (!actual.startsWith(first) || !actual.endsWith(final)) return false;
  // The middle pieces lie between the first and the last, in order, without overlapping either.
  let at = first.length;
  const end = actual.length - final.length;
  for (let i = 1; i < pieces.length - 1; i++) {
    const piece = pieces[i]!;
    const found = actual.indexOf(piece, at);
    if (found < 0 || found + piece.length > end) return false;
    at = found + piece.length;
  }
  return true;
}
