/**
 * Where the hook scripts go when the session directory's path would not survive agy's splitting. agy 1.3.3
 * cuts a hook `command` at spaces and execs it without a shell (docs/reference/hooks.md#hook-commands-split-on-spaces),
 * so the command must be one plain word: a script under a `dataDir` such as `~/Library/Application Support`
 * cannot be named by any quoting. The scripts then go to a private directory of their own, made like a session
 * directory (0700, an owner file, removed on close, swept at a later start once its process is gone) under the
 * first of the SDK's default data directory or `/tmp/agy-sdk-<uid>` whose path is plain. The scripts carry no
 * secret: the token stays in the private config files of the session directory, which they read by path.
 */
import { join } from 'node:path';
import { ConfigError } from '../../../errors.js';
import { currentPlatform } from '../../../platform/index.js';
import { defaultDataDir, SessionDir } from '../../tool-server/session-dir.js';

/** Whether a hook script at `scriptPath` can be named by a command agy runs with or without a shell. */
export function splitSafe(scriptPath: string): boolean {
  return currentPlatform().isPlainWord(scriptPath);
}

/** The data directories tried for a hook script directory, in order. */
export function hookBinRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  return [...new Set([defaultDataDir(env), currentPlatform().privateTempRoot()])];
}

/**
 * Creates the hook script directory under the first root of {@link hookBinRoots} whose session paths are
 * plain words.
 *
 * @throws ConfigError when no root is plain, or when creating the directory fails.
 */
export async function createHookBinDir(env: NodeJS.ProcessEnv = process.env): Promise<SessionDir> {
  const roots = hookBinRoots(env);
  // A session path is `<root>/sessions/<uuid>`: plain exactly when the root is.
  const root = roots.find((r) => splitSafe(join(r, 'sessions')));
  if (root === undefined) {
    throw new ConfigError(
      'dataDir',
      `the session directory's path has characters agy's hook command splitting would cut (a space, a quote), and no plain directory was found for the hook scripts (tried ${roots.join(', ')})`,
    );
  }
  return SessionDir.create({ dataDir: root, ownDataDir: true });
}
