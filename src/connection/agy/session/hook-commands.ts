/**
 * The commands agy runs for our hooks. Each event gets an executable script in the session directory that
 * posts the hook's stdin to the listener and prints the reply: `curl` when installed (fast, no Node
 * start-up), else the Node relay (`hook-relay.ts`) run by `process.execPath`.
 *
 * The command written to hooks.json is the script's absolute path as one shell word: real agy runs hook
 * commands as command lines (a captured plugin hook was `python3 '<path>' hook`), so a session directory
 * named with shell syntax must not run anything. A path of plain characters stays bare, which also works
 * where agy execs the command without a shell. Every path inside the scripts is quoted the same way. The
 * listener URL carries the session token; it lives only in private (0600) config files read by `curl -K` or
 * the relay, never in argv.
 */
import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { scriptPath } from '../../../internal/script-path.js';
import { shellCommand, shellQuote } from '../../../internal/shell-quote.js';
import { findOnPath } from '../../../internal/which.js';
import type { SessionDir } from './session-dir.js';

/** How hook commands reach the listener. */
export type HookRelayKind = 'curl' | 'node';

/** Finds `curl` on PATH, or undefined. */
export function findCurl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return findOnPath(['curl'], env).found;
}

/** curl config files quote values with double quotes and backslash escapes. */
const curlQuote = (s: string): string => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** Options for writing one event's command. */
export interface HookCommandOptions {
  event: string;
  /** The listener's hook URL for the event (contains the token). */
  url: string;
  /** The listener's hook timeout, in ms; the relay waits a second longer. */
  timeoutMs: number;
  relay: HookRelayKind;
  /** curl's absolute path, when `relay` is `curl`. */
  curlPath?: string | undefined;
}

/**
 * Writes the command script (0700) and its private config (0600); returns the command line for hooks.json:
 * the script's absolute path, shell-quoted.
 */
export async function writeHookCommand(session: SessionDir, o: HookCommandOptions): Promise<string> {
  const dir = await session.subdir('hooks');
  const script = join(dir, `${o.event}.sh`);
  let body: string;
  if (o.relay === 'curl') {
    const conf = await session.writePrivate(
      `hooks/${o.event}.curl`,
      [
        `url = ${curlQuote(o.url)}`,
        'request = "POST"',
        'header = "content-type: application/json"',
        'data-binary = "@-"',
        // Never through a proxy from the environment (curl honours http_proxy/all_proxy even for 127.0.0.1):
        // the URL carries the token, and a proxy would also fail every hook.
        'noproxy = "*"',
        'silent',
        'show-error',
        'fail',
        `max-time = ${Math.ceil(o.timeoutMs / 1000) + 1}`,
        '',
      ].join('\n'),
    );
    // Never an empty answer: agy versions differ on what empty stdout or a non-zero exit means (1.0.7 ran the
    // tool), so when curl fails (listener gone, HTTP error via `--fail`) the script prints the fail-closed
    // fallback itself: an explicit deny for PreToolUse, `{}` for the other events (docs/reference/hooks.md#pretooluse-answers, docs/reference/hooks.md#hook-relay).
    const fallback =
      o.event === 'PreToolUse'
        ? JSON.stringify({ decision: 'deny', reason: 'agy-sdk hook relay failed' })
        : '{}';
    body = [
      `out=$(${shellCommand([o.curlPath ?? 'curl', '-K', conf])}) && [ -n "$out" ] && { printf '%s' "$out"; exit 0; }`,
      `printf '%s' ${shellQuote(fallback)}`,
    ].join('\n');
  } else {
    const conf = await session.writePrivate(
      `hooks/${o.event}.json`,
      // A second more than the listener's own timeout (as curl's max-time), so the listener's answer, or
      // its fail-closed fallback, always arrives before the relay gives up.
      JSON.stringify({ url: o.url, event: o.event, timeoutMs: o.timeoutMs + 1000 }),
    );
    body = `exec ${shellCommand([process.execPath, scriptPath('./hook-relay.js', import.meta.url), conf])}`;
  }
  await session.writePrivate(`hooks/${o.event}.sh`, `#!/bin/sh\n${body}\n`);
  await chmod(script, 0o700);
  return shellQuote(script);
}
