/**
 * The commands agy runs for our hooks. Each event gets an executable script in the session directory that
 * posts the hook's stdin to the listener and prints the reply: `curl` when installed (fast, no Node
 * start-up), else bash's `/dev/tcp` when bash is installed (as fast), else the Node relay (`hook-relay.ts`)
 * run by `process.execPath`. The scripts themselves are the platform's (`platform/`: `sh` scripts on POSIX);
 * this file decides what agy needs of them (one script per event, the fail-closed answer, the private files).
 *
 * The command written to hooks.json is the script's absolute path as one plain word: older agy runs hook
 * commands as shell command lines (a captured plugin hook was `python3 '<path>' hook`), 1.3.3 splits them at
 * spaces and execs them without a shell (docs/reference/hooks.md#hook-commands-split-on-spaces), and a plain
 * path means the same to both. `hooks-file.ts` puts the scripts where their path is plain
 * (`hook-bin-dir.ts`); a path that still is not plain would be single-quoted, so that at least no shell runs
 * anything from it. Every path inside the scripts is quoted for `sh`, which reads them either way. The
 * listener URL carries the session token; it lives only in private (0600) config files read by `curl -K` or
 * the relay, never in argv.
 */
import { scriptPath } from '../../../internal/script-path.js';
import { currentPlatform, type HookRelayKind } from '../../../platform/index.js';

export type { HookRelayKind };

/** Finds `curl` on PATH, or undefined. */
export function findCurl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return currentPlatform().findRelayTool('curl', env);
}

/**
 * Finds `bash` on PATH for the bash relay, or undefined. Its path goes on a `#!` line, so only a plain
 * absolute path qualifies (no whitespace or shell syntax, within the kernel's line limit).
 */
export function findBash(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return currentPlatform().findRelayTool('bash', env);
}

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
  /** bash's absolute path (from {@link findBash}), when `relay` is `bash`. */
  bashPath?: string | undefined;
  /**
   * A file whose absence answers the hook at once with `{}` (stdin drained, no relay call): the gate of a
   * PreInvocation hook that only delivers steering. Only for events whose `{}` answer changes nothing.
   */
  gate?: string | undefined;
  /**
   * Queues the executable script, when it goes elsewhere than its private config (a directory whose path is a
   * plain word, `hook-bin-dir.ts`); default: the same queue.
   */
  queueScript?: QueueFile | undefined;
}

/** Queues a file for the session to write with all its others (`SessionDir.writeAllPrivate`); returns its path. */
export type QueueFile = (relative: string, content: string, mode?: 0o700) => string;

/**
 * Queues one event's hook files (the script, 0700, and its private config, 0600) and returns the command line
 * for hooks.json: the script's absolute path, quoted by the platform.
 */
export function queueHookCommand(queue: QueueFile, o: HookCommandOptions): string {
  const platform = currentPlatform();
  /** Queues `hooks/<event>.<suffix>` (0600) and returns its absolute path. */
  const privateFile = (suffix: string, content: string): string =>
    queue(`hooks/${o.event}.${suffix}`, content);
  const script = platform.relayScript(
    {
      url: o.url,
      timeoutMs: o.timeoutMs,
      relay: o.relay,
      curlPath: o.curlPath,
      bashPath: o.bashPath,
      // Never an empty answer: agy versions differ on what empty stdout or a non-zero exit means (1.0.7 ran
      // the tool), so a failed relay prints the fail-closed fallback itself
      // (docs/reference/hooks.md#pretooluse-answers, docs/reference/hooks.md#hook-relay).
      fallback: relayFallback(o.event),
      gate: o.gate,
    },
    {
      privateFile,
      // The Node relay's config: a second more than the listener's own timeout (as curl's max-time), so the
      // listener's answer, or its fail-closed fallback, always arrives before the relay gives up.
      nodeRelay: () => [
        process.execPath,
        scriptPath('connection/agy/session/hook-relay.js'),
        privateFile('json', JSON.stringify({ url: o.url, event: o.event, timeoutMs: o.timeoutMs + 1000 })),
      ],
    },
  );
  const path = (o.queueScript ?? queue)(`hooks/${o.event}.${script.extension}`, script.content, 0o700);
  return platform.hookCommand(path);
}

/** The fail-closed answer a relay prints itself: an explicit deny for PreToolUse, `{}` for the other events. */
function relayFallback(event: string): string {
  return event === 'PreToolUse'
    ? JSON.stringify({ decision: 'deny', reason: 'agy-sdk hook relay failed' })
    : '{}';
}
