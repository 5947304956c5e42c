/**
 * agy silently ignores an `--add-dir` path with a hidden segment (`/.x/`): "is hidden: ignore uri", and tools
 * fall back to a scratch dir (docs/reference/plugins-and-config.md#hidden-path-rule, antigravity-cli #20). So such paths are refused up front, both
 * as written and as they really are: a symlink `/srv/ws -> /home/u/.work/ws` hides the segment from the
 * string but not from agy, which sees the resolved path.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { ConfigError } from '../../errors.js';

/** The first hidden segment of an absolute path, or undefined. */
export function hiddenSegment(path: string): string | undefined {
  return resolve(path)
    .split(sep)
    .find((seg) => seg.length > 1 && seg.startsWith('.') && seg !== '..');
}

/** A hidden segment and the path it was found in (the path as given, or its real path). */
export interface HiddenSegment {
  /** The hidden segment, e.g. `.work`. */
  segment: string;
  /** The path that contains it. */
  path: string;
}

/**
 * The first hidden segment of `path` as written, or else of its real path (symlinks resolved). A path that
 * does not exist yet (a `dataDir` about to be created) is resolved through its deepest existing ancestor.
 */
export function hiddenSegmentReal(path: string): HiddenSegment | undefined {
  const direct = hiddenSegment(path);
  if (direct) return { segment: direct, path: resolve(path) };
  const rest: string[] = [];
  let current = resolve(path);
  for (;;) {
    let real: string | undefined;
    try {
      real = realpathSync(current);
    } catch {
      const parent = dirname(current);
      if (parent === current) return undefined;
      rest.unshift(basename(current));
      current = parent;
      continue;
    }
    const full = join(real, ...rest);
    const segment = hiddenSegment(full);
    return segment ? { segment, path: full } : undefined;
  }
}

/**
 * Checks a `dataDir`: absolute, and no hidden segment as written or after symlinks. Session directories live
 * under it and reach agy with `--add-dir`, which agy ignores under a hidden directory: the session's plugin,
 * hooks and rules would then silently not load.
 */
export function validateDataDir(dataDir: unknown): string {
  if (typeof dataDir !== 'string' || !isAbsolute(dataDir)) {
    throw new ConfigError('dataDir', `must be an absolute path, got ${JSON.stringify(dataDir)}`);
  }
  const hidden = hiddenSegmentReal(dataDir);
  if (hidden) {
    throw new ConfigError(
      'dataDir',
      `${dataDir} has a hidden segment (${hidden.segment}${hidden.path === dataDir ? '' : ` in its real path ${hidden.path}`}); agy silently ignores --add-dir paths under hidden directories, so the session's files would not load`,
    );
  }
  return dataDir;
}
