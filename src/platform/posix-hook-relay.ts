/**
 * The POSIX hook relay scripts: `#!/bin/sh` running `curl -K <private config>` when curl is installed (fast,
 * no Node start-up), else a `#!<bash>` script posting over bash's `/dev/tcp` (as fast), else `#!/bin/sh`
 * exec'ing the Node relay. Every path inside a script is quoted for `sh`, which reads it whether agy runs the
 * command through a shell or execs it (docs/reference/hooks.md#hook-commands-split-on-spaces). The listener URL
 * carries the session token: it lives only in private (0600) config files read by `curl -K`, bash's `read` or
 * the Node relay, never in the script, argv or the environment.
 */
import { findOnPath } from '../internal/which.js';
import { shellCommand, shellQuote } from './posix-shell-quote.js';
import type { RelayFiles, RelayScript, RelayScriptSpec } from './types.js';

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

/** The text of one POSIX relay script for `spec` (see the module's comment). */
export function posixRelayScript(spec: RelayScriptSpec, files: RelayFiles): RelayScript {
  let body: string;
  if (spec.relay === 'curl') {
    const conf = files.privateFile(
      'curl',
      [
        `url = ${curlQuote(spec.url)}`,
        'request = "POST"',
        'header = "content-type: application/json"',
        'data-binary = "@-"',
        // Never through a proxy from the environment (curl honours http_proxy/all_proxy even for 127.0.0.1):
        // the URL carries the token, and a proxy would also fail every hook.
        'noproxy = "*"',
        'silent',
        'show-error',
        'fail',
        `max-time = ${Math.ceil(spec.timeoutMs / 1000) + 1}`,
        '',
      ].join('\n'),
    );
    // Never an empty answer: agy versions differ on what empty stdout or a non-zero exit means (1.0.7 ran the
    // tool), so when curl fails (listener gone, HTTP error via `--fail`) the script prints the fail-closed
    // fallback itself (docs/reference/hooks.md#pretooluse-answers, docs/reference/hooks.md#hook-relay).
    body = [
      `out=$(${shellCommand([spec.curlPath ?? 'curl', '-K', conf])}) && [ -n "$out" ] && { printf '%s' "$out"; exit 0; }`,
      `printf '%s' ${shellQuote(spec.fallback)}`,
    ].join('\n');
  } else if (spec.relay === 'bash') {
    body = bashRelay(spec, files);
  } else {
    body = `exec ${shellCommand(files.nodeRelay())}`;
  }
  if (spec.gate !== undefined) body = `${gateLine(spec.gate)}\n${body}`;
  const shebang = spec.relay === 'bash' ? `#!${spec.bashPath ?? '/bin/bash'}` : '#!/bin/sh';
  return { extension: 'sh', content: `${shebang}\n${body}\n` };
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

/**
 * The bash relay: one HTTP/1.1 POST over bash's `/dev/tcp`, so a hook costs a bash start instead of a Node
 * start (docs/reference/hooks.md#hook-relay). The port, path (with the token) and timeout are read from a
 * private (0600) file with the `read` builtin: the token is never in the script, argv or the environment.
 * `LC_ALL=C` makes `${#body}` count bytes (the Content-Length) and keeps every byte as is; SIGPIPE is
 * ignored so a listener that refuses a body mid-write (413) makes `printf` fail instead of killing the
 * script. Anything but a 2xx with a non-empty body prints the fail-closed fallback; a bash built without
 * `/dev/tcp` execs the Node relay instead (which fails closed the same way).
 */
function bashRelay(spec: RelayScriptSpec, files: RelayFiles): string {
  const url = new URL(spec.url);
  const conf = files.privateFile(
    'tcp',
    // A second more than the listener's own timeout (as curl's max-time): its answer, or its fail-closed
    // fallback, always arrives before the relay gives up.
    `${url.port}\n${url.pathname}\n${Math.ceil(spec.timeoutMs / 1000) + 1}\n`,
  );
  const nodeRelay = shellCommand(files.nodeRelay());
  const cat = findCat();
  return [
    'LC_ALL=C',
    "trap '' PIPE",
    `fail() { printf '%s' ${shellQuote(spec.fallback)}; exit 0; }`,
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
