/**
 * The session's `hooks.json` and its relay scripts: one command per registered event (only events with
 * handlers are installed), tool events under their combined matcher, each command's script and private config
 * queued for the session to write with its other files. A script goes to a directory of its own when the
 * session directory's path is not one plain word (`hook-bin-dir.ts`,
 * docs/reference/hooks.md#hook-commands-split-on-spaces).
 */
import { join } from 'node:path';
import { ConfigError } from '../../../errors.js';
import { type HookBundle, type HooksFile, HooksFileSchema, validated } from '../../../protocol/agy-files.js';
import { AGY_HOOK_EVENTS, type AgyHookRegistration, TOOL_HOOK_EVENTS } from '../../../protocol/hook-wire.js';
import type { SessionListener } from '../../tool-server/listener.js';
import { DEFAULT_HOOK_TIMEOUT_MS } from '../../tool-server/listener-hook.js';
import { SDK_NAMESPACE } from '../../tool-server/server-name.js';
import type { PrivateFile, SessionDir } from '../../tool-server/session-dir.js';
import { createHookBinDir, splitSafe } from './hook-bin-dir.js';
import { findBash, findCurl, type HookRelayKind, type QueueFile, queueHookCommand } from './hook-commands.js';
import { combinedMatcher } from './hook-dispatcher.js';

/** The PreInvocation gate: while this file exists, the PreInvocation command calls the listener. */
export const PRE_INVOCATION_GATE = 'hooks/PreInvocation.open';

/** What {@link queueHooksFile} reads of the session's options. */
export interface HooksFileOptions {
  /** The registrations to install. */
  hooks?: readonly AgyHookRegistration[] | undefined;
  /** The listener's hook timeout, in ms. */
  hookTimeoutMs?: number | undefined;
  /** `auto` (default): curl when installed, else bash, else the Node relay. */
  hookRelay?: 'auto' | HookRelayKind | undefined;
  /** Gate the PreInvocation command on {@link PRE_INVOCATION_GATE}. */
  gatePreInvocation?: boolean | undefined;
  /** The environment agy runs with (PATH, for curl and bash). */
  env: NodeJS.ProcessEnv;
}

/** What {@link queueHooksFile} made. */
export interface QueuedHooks {
  /** The hooks file's content, when any hook is installed. */
  hooksFile: HooksFile | undefined;
  /** The gate file's path, when the PreInvocation command is gated. */
  preInvocationGate: string | undefined;
  /** The scripts' own directory and the files queued for it, when the session directory's path is not plain. */
  scripts: { dir: SessionDir; files: PrivateFile[] } | undefined;
}

/**
 * Queues every hook file into `queue` (the scripts into their own directory when needed, recorded in `owned`
 * as soon as it exists, so the caller removes it if anything later fails) and returns the hooks file.
 *
 * @throws ConfigError when a requested relay is not installed, or no plain directory exists for the scripts.
 */
export async function queueHooksFile(
  dir: SessionDir,
  listener: SessionListener | undefined,
  o: HooksFileOptions,
  queue: QueueFile,
  owned: { hookBinDir?: SessionDir },
): Promise<QueuedHooks> {
  const registrations = o.hooks ?? [];
  if (!listener || registrations.length === 0)
    return { hooksFile: undefined, preInvocationGate: undefined, scripts: undefined };
  const timeoutMs = o.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  const curl = o.hookRelay === 'node' || o.hookRelay === 'bash' ? undefined : findCurl(o.env);
  if (o.hookRelay === 'curl' && !curl)
    throw new ConfigError('hookRelay', "'curl' was requested but curl is not on PATH");
  const bash = curl || o.hookRelay === 'node' ? undefined : findBash(o.env);
  if (o.hookRelay === 'bash' && !bash)
    throw new ConfigError('hookRelay', "'bash' was requested but bash is not on PATH");
  let scripts: QueuedHooks['scripts'];
  if (!splitSafe(dir.resolve('hooks/PreToolUse.sh'))) {
    owned.hookBinDir = await createHookBinDir();
    scripts = { dir: owned.hookBinDir, files: [] };
  }
  const own = scripts;
  const queueScript: QueueFile = own
    ? (relative, content, mode) => {
        own.files.push({ relative, content, mode });
        return own.dir.resolve(relative);
      }
    : queue;
  let preInvocationGate: string | undefined;
  const bundle: HookBundle = { enabled: true };
  for (const event of AGY_HOOK_EVENTS) {
    const regs = registrations.filter((r) => r.event === event);
    if (regs.length === 0) continue;
    const gated = event === 'PreInvocation' && o.gatePreInvocation === true;
    if (gated) preInvocationGate = join(dir.path, PRE_INVOCATION_GATE);
    const command = queueHookCommand(queue, {
      event,
      url: listener.hookUrl(event),
      timeoutMs,
      relay: curl ? 'curl' : bash ? 'bash' : 'node',
      curlPath: curl,
      bashPath: bash,
      gate: gated ? preInvocationGate : undefined,
      queueScript,
    });
    // agy's own timeout (seconds) is longer than ours, so our fail-closed answer arrives first.
    const handler = { type: 'command' as const, command, timeout: Math.ceil(timeoutMs / 1000) + 5 };
    (bundle as Record<string, unknown>)[event] = TOOL_HOOK_EVENTS.has(event)
      ? [{ matcher: combinedMatcher(regs.map((r) => r.matcher)), hooks: [handler] }]
      : [handler];
  }
  const hooksFile = validated(HooksFileSchema, { [SDK_NAMESPACE]: bundle }, 'hooks.json');
  return { hooksFile, preInvocationGate, scripts };
}
