/**
 * Which agy build the simulator imitates. Real builds differ on the wire (agy-real captures): 1.1.x ends each
 * turn with a `checkpoint` step carrying usage and reports a print timeout as `ERROR` "timeout waiting for
 * response" (exit 1); 1.2.7 soft-denies a tool with an `ERROR` step (`TOOL_ERROR` "…denied permission…");
 * 1.2.17+ soft-denies with a `DONE` step without output and reports a print timeout as `SUCCESS` with an
 * empty response and all-zero usage (exit 0). The default is the newest captured build, 1.3.1.
 *
 * 1.3.3 and later differ in how they run and read hooks. That profile is built from a description, not from
 * captured bytes: a hook author's probe of 1.3.3 (docs/reference/hooks.md#pretooluse-answers-on-133,
 * docs/reference/hooks.md#hook-commands-split-on-spaces). 1.5 and later also ignore SIGTERM, from a plugin
 * author's changelog (docs/reference/process.md#agy-15-ignores-sigterm). Versions between two known ones
 * behave like the older one; {@link AgyProfile.evidence} says which profiles rest on descriptions.
 */
import type { ProfileFlags } from './args.js';
import { TOOLS_1_1_8, TOOLS_1_1_9, TOOLS_1_2_7, TOOLS_1_2_17, TOOLS_1_3_1 } from './builtin-tools.js';

/** The newest agy build whose wire output was captured; the simulator's default. */
export const DEFAULT_AGY_VERSION = '1.3.1';

/** The wire behaviours that depend on the imitated agy version. */
export interface AgyProfile {
  /** The version string (`agy --version`). */
  readonly version: string;
  /** `init.tools`. */
  readonly tools: readonly string[];
  /**
   * The first turn of a new conversation that made a model call ends with a DONE `checkpoint` step carrying
   * usage (1.1.x: every captured first turn has one, the captured resumed turn has none), unless the turn
   * already wrote one (a `checkpoint` action).
   */
  readonly checkpoints: boolean;
  /** How a soft-denied tool step ends: `done` (1.2.17+, no output) or `error` (1.2.7, `TOOL_ERROR`). */
  readonly denial: 'done' | 'error';
  /**
   * How a soft-denied turn ends: `success` with `denied_actions`, or `canceled` (1.1.18: `result` CANCELED, no
   * `denied_actions`; docs/reference/stream-json.md#canceled-soft-denial).
   */
  readonly softDenialResult: 'success' | 'canceled';
  /** How a print timeout ends the turn: `success` (1.2.17+) or `error` (1.1.x, exit 1). */
  readonly printTimeout: 'success' | 'error';
  /**
   * An unknown `--conversation`: `fallback` (1.1.9: the asked id, an `unknown` fallback step) or `new` (1.3.x: a
   * stderr warning and a fresh id; agy-real/littlebearapps-untether-agy-1.3.1/unknown_conversation.script).
   */
  readonly unknownConversation: 'fallback' | 'new';
  /**
   * How a turn cut by SIGINT/SIGTERM ends: `interrupted` (1.3.x: ERROR "interrupted", stderr `error: interrupted`,
   * exit 1; agy-real/littlebearapps-untether-agy-1.3.1/interrupted_sigint.script) or `canceled` (1.1.x: ERROR
   * "context canceled", test/fixtures/agy-shapes/1.1.18-sigint-stdin.script).
   */
  readonly interrupt: 'interrupted' | 'canceled';
  /**
   * How a PreToolUse hook denial ends the turn: `success` (1.3.1) or `error` (1.1.x: ERROR with the step's
   * text; docs/reference/hooks.md#hook-denials-on-stdout). The step is `TOOL_ERROR` either way.
   */
  readonly hookDenialResult: 'success' | 'error';
  /**
   * Whether a DONE `system_message` carries `duration_seconds`: 1.2.13+ do (agy-real/unnamed-plenipo-agy-1.2.13/
   * e3-resume-conversation.ndjson, agy-real/littlebearapps-untether-agy-1.3.1/resume_after_interrupt.script),
   * 1.1.9 does not (agy-real/jdiazromeral-agy-plugin-cc/resume-2026-08-02-run1.ndjson).
   */
  readonly systemMessageDuration: boolean;
  /**
   * What `result.response` holds: `joined`, every `agent_response` text of the turn in order (1.3.x:
   * agy-real/littlebearapps-untether-agy-1.3.1/background_held.script, "STARTED\n" then the answer), or `last`,
   * the latest one only (older profiles: no capture of theirs shows a turn with two texts, so they keep it).
   */
  readonly responseText: 'joined' | 'last';
  /**
   * How a hook `command` is run: `shell`, as a command line through `/bin/sh -c` (real hooks carry arguments
   * and quotes, agy-real/configs-hooks-json/), or `split` (1.3.3+: cut at whitespace and exec'd without a shell,
   * so quotes stay in the words; docs/reference/hooks.md#hook-commands-split-on-spaces).
   */
  readonly hookCommand: 'shell' | 'split';
  /**
   * How a PreToolUse answer is read: `1.2.3` (docs/reference/hooks.md#pretooluse-answers: `allow` runs the
   * tool, `{}` denies, empty stdout runs it) or `1.3.3` (docs/reference/hooks.md#pretooluse-answers-on-133:
   * `{}` runs it without agy's own prompt, `deny` blocks, `allow`/`ask`/`permissionOverrides` and empty stdout
   * fall back to agy's permission check, which headless mode denies unless permissions are skipped).
   */
  readonly preToolUseAnswers: '1.2.3' | '1.3.3';
  /**
   * The turn-shaping flags the build accepts (docs/reference/stream-json.md#flags-by-version): `--effort`
   * values (`low|medium|high` on every build: no build is known to take `xhigh`/`max`), `--mode` values
   * (`plan` from 1.1.2, `accept-edits` from 1.3.1, the first builds seen with them) and `--sandbox` (from
   * 1.1.9). Below the first build seen with one, the simulator refuses it as agy refuses a flag it does not
   * know; no capture shows what those builds really do.
   */
  readonly flags: ProfileFlags;
  /**
   * What the profile rests on: `captures`, real agy output of that line (agy-real), or `description`, what
   * others wrote about a build no capture of ours shows (1.3.3+: docs/reference/versions.md#supported-versions).
   * Where a described profile says nothing, it keeps the newest captured build's behaviour.
   */
  readonly evidence: 'captures' | 'description';
  /**
   * What SIGTERM does: `interrupt`, ends a running turn as SIGINT does and exits 143 when idle (1.3.1:
   * agy-real/littlebearapps-untether-agy-1.3.1/interrupted_sigterm.script), or `ignore` (1.5+: only SIGKILL
   * ends agy; docs/reference/process.md#agy-15-ignores-sigterm).
   */
  readonly sigterm: 'interrupt' | 'ignore';
}

/** `1.2.17` → `[1, 2, 17]`; missing or non-numeric parts count as 0. */
function parts(version: string): number[] {
  return version.split('.').map((part) => Number.parseInt(part, 10) || 0);
}

/** Whether `version` is older than `than` (numeric, part by part). */
export function olderThan(version: string, than: string): boolean {
  const a = parts(version);
  const b = parts(than);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x < y;
  }
  return false;
}

/**
 * `init.tools` of an agy version: the newest captured list at or below it. 1.3.3 (a profile built from a
 * description) lists 1.3.1's tools: no capture of a later build shows its list.
 */
function toolsFor(version: string): readonly string[] {
  if (!olderThan(version, '1.3.0')) return TOOLS_1_3_1;
  if (!olderThan(version, '1.2.17')) return TOOLS_1_2_17;
  if (!olderThan(version, '1.2.0')) return TOOLS_1_2_7;
  return olderThan(version, '1.1.9') ? TOOLS_1_1_8 : TOOLS_1_1_9;
}

/** The profile of an agy version; versions between two captured ones behave like the older capture. */
export function profileFor(version: string): AgyProfile {
  const v1_2 = !olderThan(version, '1.2.0');
  const v1_2_17 = !olderThan(version, '1.2.17');
  return {
    version,
    tools: toolsFor(version),
    checkpoints: !v1_2,
    // 1.1.18 ends a soft-denied step DONE without output (test/fixtures/agy-shapes/1.1.18-soft-denial.script).
    denial: v1_2_17 || (!v1_2 && !olderThan(version, '1.1.18')) ? 'done' : 'error',
    softDenialResult: !v1_2 && !olderThan(version, '1.1.18') ? 'canceled' : 'success',
    printTimeout: v1_2 ? 'success' : 'error',
    unknownConversation: olderThan(version, '1.3.0') ? 'fallback' : 'new',
    interrupt: v1_2 ? 'interrupted' : 'canceled',
    hookDenialResult: v1_2 ? 'success' : 'error',
    systemMessageDuration: v1_2,
    responseText: olderThan(version, '1.3.0') ? 'last' : 'joined',
    hookCommand: olderThan(version, '1.3.3') ? 'shell' : 'split',
    preToolUseAnswers: olderThan(version, '1.3.3') ? '1.2.3' : '1.3.3',
    flags: {
      efforts: ['low', 'medium', 'high'],
      modes: ['plan', 'accept-edits'].filter((m) => !olderThan(version, m === 'plan' ? '1.1.2' : '1.3.1')),
      sandbox: !olderThan(version, '1.1.9'),
    },
    evidence: olderThan(version, '1.3.3') ? 'captures' : 'description',
    sigterm: olderThan(version, '1.5.0') ? 'interrupt' : 'ignore',
  };
}
