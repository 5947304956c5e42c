/**
 * `--add-dir` workspaces. agy silently drops a directory whose path has a hidden (`.`-prefixed) segment
 * ("is hidden: ignore uri", antigravity-cli #20), and so does the simulator.
 */
import { resolve, sep } from 'node:path';

/** Whether agy would ignore this workspace path for having a hidden segment. */
export function isHiddenPath(absolute: string): boolean {
  return absolute.split(sep).some((segment) => segment.startsWith('.'));
}

/** The workspaces agy would use: each `--add-dir` made absolute (against `cwd`), hidden ones dropped. */
export function usableWorkspaces(addDirs: readonly string[], cwd: string): string[] {
  return addDirs.map((dir) => resolve(cwd, dir)).filter((dir) => !isHiddenPath(dir));
}
