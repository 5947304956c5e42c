/**
 * What Linux and macOS share: process groups (`setsid` through `detached`, a negative pid signals the group),
 * POSIX signals, `/bin/sh` for the supervisor's waiter and for hook command lines, and the `sh`/curl/bash hook
 * relays. A POSIX platform is these parts plus its own {@link ProcessTable}.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { findBash, findCurl, posixRelayScript } from './posix-hook-relay.js';
import { isPlainWord, shellCommand, shellQuote } from './posix-shell-quote.js';
import type { NewGroupSpawnOptions, Platform, ProcessTable } from './types.js';

/** Sends `signal` to `target` (a negative target: a process group); false when gone (ESRCH) or not ours. */
function signalQuietly(target: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(target, signal);
    return true;
  } catch {
    // ESRCH: already gone.
    return false;
  }
}

/**
 * The waiter: blocks until fd 4 (the wake pipe) reads a line or EOF, then execs `"$0" "$@"` (Node and the
 * supervisor script). SIGINT and SIGHUP stay ignored through the exec, as the supervisor wants them.
 */
const WAITER_SCRIPT = `trap '' INT HUP; read -r _ <&4; exec "$0" "$@" 4<&-`;

/** `/bin/sh` when it exists (looked up once), else undefined. */
let binSh: string | undefined | null = null;
function findBinSh(): string | undefined {
  if (binSh === null) binSh = existsSync('/bin/sh') ? '/bin/sh' : undefined;
  return binSh;
}

/** A POSIX platform named `name` whose process table is `processes`. */
export function posixPlatform(name: NodeJS.Platform, processes: ProcessTable): Platform {
  return {
    name,
    // `detached` makes the child call setsid(): a session and process group of its own.
    newGroupSpawnOptions: (): NewGroupSpawnOptions => ({ detached: true, windowsHide: true }),
    signalProcess: (pid, signal) => signalQuietly(pid, signal),
    signalGroup: (pid, signal) => signalQuietly(-pid, signal),
    supervisorWaiter: (command) => {
      const sh = findBinSh();
      return sh === undefined ? undefined : [sh, ['-c', WAITER_SCRIPT, ...command]];
    },
    processes,
    hookShellArgv: (command) => ['/bin/sh', ['-c', command]],
    isPlainWord,
    quote: shellQuote,
    commandLine: shellCommand,
    // One plain word means the same to a shell and to agy 1.3.3's split on spaces; a path that is not plain
    // is single-quoted, so that at least no shell runs anything from it.
    hookCommand: (scriptPath) => shellQuote(scriptPath),
    relayScript: posixRelayScript,
    findRelayTool: (tool, env) => (tool === 'curl' ? findCurl(env) : findBash(env)),
    privateTempRoot: () => {
      const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
      return join('/tmp', `agy-sdk-${uid}`);
    },
  };
}
