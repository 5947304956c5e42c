/**
 * agy silently ignores an `--add-dir` path with a hidden segment (`/.x/`): "is hidden: ignore uri", and tools
 * fall back to a scratch dir (agy-cli.md §1, antigravity-cli #20). So such paths are refused up front.
 */
import { resolve, sep } from 'node:path';

/** The first hidden segment of an absolute path, or undefined. */
export function hiddenSegment(path: string): string | undefined {
  return resolve(path)
    .split(sep)
    .find((seg) => seg.length > 1 && seg.startsWith('.') && seg !== '..');
}
