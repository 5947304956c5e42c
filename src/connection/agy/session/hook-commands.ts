/**
 * The commands agy runs for our hooks. Each event gets an executable script in the session directory that
 * posts the hook's stdin to the listener and prints the reply: `curl` when installed (fast, no Node
 * start-up), else bash's `/dev/tcp` when bash is installed (as fast), else the Node relay (`hook-relay.ts`)
 * run by `process.execPath`.
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
import { shellCommand, shellQuote } from '../../../internal/shell-quote.js';
import { findOnPath } from '../../../internal/which.js';

/**
 * How hook commands reach the listener: `curl`; `bash` (its `/dev/tcp`, no process but bash itself, for
 * machines without curl); or the Node relay (a Node start per hook, the slowest).
 */
export type HookRelayKind = 'curl' | 'bash' | 'node';

/** Finds `curl` on PATH, or undefined. */
export function findCurl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return findOnPath(['curl'], env).found;
}

/**
 * Finds `bash` on PATH for the bash relay, or undefined. Its path goes on a `#!` line, so only a plain
 * absolute path qualifies (no whitespace or shell syntax, within the kernel's line limit).
 */
export function findBash(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const found = findOnPath(['bash'], env).found;
  return found !== undefined && /^\/[A-Za-z0-9._+/-]{1,120}$/.test(found) ? found : undefined;
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
 * for hooks.json: the script's absolute path, shell-quoted.
 */
export function queueHookCommand(queue: QueueFile, o: HookCommandOptions): string {
  /** Queues `hooks/<event>.<suffix>` (0600) and returns its absolute path. */
  const privateFile = (suffix: string, content: string): string =>
    queue(`hooks/${o.event}.${suffix}`, content);
  let body: string;
  if (o.relay === 'curl') {
    const conf = privateFile(
      'curl',
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
  } else if (o.relay === 'bash') {
    body = bashRelay(o, privateFile);
  } else {
    const conf = privateFile(
      'json',
      // A second more than the listener's own timeout (as curl's max-time), so the listener's answer, or
      // its fail-closed fallback, always arrives before the relay gives up.
      JSON.stringify({ url: o.url, event: o.event, timeoutMs: o.timeoutMs + 1000 }),
    );
    body = `exec ${shellCommand([process.execPath, scriptPath('./hook-relay.js', import.meta.url), conf])}`;
  }
  if (o.gate !== undefined) body = `${gateLine(o.gate)}\n${body}`;
  const shebang = o.relay === 'bash' ? `#!${o.bashPath ?? '/bin/bash'}` : '#!/bin/sh';
  return shellQuote((o.queueScript ?? queue)(`hooks/${o.event}.sh`, `${shebang}\n${body}\n`, 0o700));
}

/** `cat`'s absolute path, or null where there is none; looked up once (see {@link findCat}). */
let catPath: string | null | undefined;

/**
 * `cat`'s absolute path, searched on the system's own directories only (not the user's PATH), once per
 * process: every session's gated PreInvocation and bash relay scripts name it.
 */
function findCat(): string | undefined {
  catPath ??= findOnPath(['cat'], { PATH: '/usr/bin:/bin:/usr/local/bin' }).found ?? null;
  return catPath ?? undefined;
}

/**
 * While `gate` does not exist: answer `{}` and drain stdin (agy writes the hook's input whatever the command
 * does with it, and a closed pipe could fail that write) with `cat` exec'd in the shell's place, or with the
 * shell's own `read` where there is no `cat`. One shell and one exec instead of a relay call.
 */
function gateLine(gate: string): string {
  const cat = findCat();
  const drain = cat ? `exec ${shellQuote(cat)} >/dev/null` : 'while IFS= read -r _; do :; done; exit 0';
  return `[ -e ${shellQuote(gate)} ] || { printf '%s' '{}'; ${drain}; }`;
}

/** The fail-closed answer a relay prints itself: an explicit deny for PreToolUse, `{}` for the other events. */
function relayFallback(event: string): string {
  return event === 'PreToolUse'
    ? JSON.stringify({ decision: 'deny', reason: 'agy-sdk hook relay failed' })
    : '{}';
}

/**
 * The bash relay: one HTTP/1.1 POST over bash's `/dev/tcp`, so a hook costs a bash start instead of a Node
 * start (docs/reference/hooks.md#hook-relay). The port, path (with the token) and timeout are read from a
 * private (0600) file with the `read` builtin: the token is never in the script, argv or the environment.
 * `LC_ALL=C` makes `${#body}` count bytes (the Content-Length) and keeps every byte as is; SIGPIPE is
 * ignored so a listener that refuses a body mid-write (413) makes `printf` fail instead of killing the
 * script. Anything but a 2xx with a non-empty body prints the fail-closed fallback; a bash built without
 * `/dev/tcp` execs the Node relay instead (which fails closed the same way).
 */
function bashRelay(o: HookCommandOptions, privateFile: (suffix: string, content: string) => string): string {
  const url = new URL(o.url);
  const conf = privateFile(
    'tcp',
    // A second more than the listener's own timeout (as curl's max-time): its answer, or its fail-closed
    // fallback, always arrives before the relay gives up.
    `${url.port}\n${url.pathname}\n${Math.ceil(o.timeoutMs / 1000) + 1}\n`,
  );
  const nodeConf = privateFile(
    'json',
    JSON.stringify({ url: o.url, event: o.event, timeoutMs: o.timeoutMs + 1000 }),
  );
  const nodeRelay = shellCommand([
    process.execPath,
    scriptPath('./hook-relay.js', import.meta.url),
    nodeConf,
  ]);
  const cat = findCat();
  return [
    'LC_ALL=C',
    "trap '' PIPE",
    `fail() { printf '%s' ${shellQuote(relayFallback(o.event))}; exit 0; }`,
    `{ IFS= read -r port; IFS= read -r path; IFS= read -r wait; } < ${shellQuote(conf)} || fail`,
    // All of stdin. bash's `read` takes one syscall per byte on a pipe or socket: cheapest for the usual
    // ~1 KB input, slow for a large one, so past 16 KiB the rest is read by cat in blocks.
    `if IFS= read -r -d '' -n 16384 body; then body+=$(${cat ? shellQuote(cat) : "IFS= read -r -d '' rest; printf '%s' \"$rest\""}); fi`,
    `{ exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || exec ${nodeRelay} <<<"$body"`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: ${#body} is bash (the body's length in bytes).
    'printf \'POST %s HTTP/1.1\\r\\nHost: 127.0.0.1:%s\\r\\nContent-Type: application/json\\r\\nContent-Length: %s\\r\\nConnection: close\\r\\n\\r\\n%s\' "$path" "$port" "${#body}" "$body" >&3 2>/dev/null',
    'IFS= read -r -t "$wait" status <&3 || fail',
    "case $status in 'HTTP/1.1 2'[0-9][0-9]' '*) ;; *) fail ;; esac",
    String.raw`while IFS= read -r -t "$wait" line <&3; do [ "$line" = $'\r' ] && break; done`,
    // Connection: close, so the body ends at EOF (read returns 1 there, with the body read).
    `IFS= read -r -d '' -t "$wait" reply <&3`,
    '[ -n "$reply" ] || fail',
    `printf '%s' "$reply"`,
  ].join('\n');
}
