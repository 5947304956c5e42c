/**
 * The real agy captures in `../shared/fixtures/agy-real/` (see its README.md and each SOURCE.txt), and what each
 * one says about the turn. Exit codes are given only where SOURCE.txt states one.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TurnStatus } from '../../src/model/turn-result.js';
import { sharedPath } from './shared-dir.js';

/** The captures folder (`AGY_SDK_SHARED_DIR` moves it: test/helpers/shared-dir.ts). */
export const AGY_REAL = sharedPath('fixtures/agy-real');
export const HAVE_CAPTURES = existsSync(AGY_REAL);
export const NO_CAPTURES_REASON = `the real agy captures are not here (${AGY_REAL})`;

export interface Capture {
  /** `<folder>/<file>`, relative to agy-real/. */
  stdout: string;
  stderr?: string;
  /** The exit code SOURCE.txt states. */
  exit?: number;
  status: TurnStatus;
  /**
   * Why the turn's usage cannot equal `result.usage` (it is cumulative over earlier turns), when it cannot.
   */
  usageNotWhole?: string;
  /** Why the streamed text is not agy's `response` (the capturer's path scrub missed split deltas), when it is not. */
  textNotResponse?: string;
  /** Tool calls a PreToolUse hook denied (agy's "tool call denied by pre-tool hook: …"), which join `deniedActions`. */
  hookDenied?: number;
}

/**
 * A `.script` capture (`sleep:`/`out:`/`err:`/`rc:` entries) that is not one stdin turn: a failure before `init`,
 * or a print-mode `-p /model` run. Replayed apart from {@link CAPTURES}.
 */
export interface ScriptRun {
  /** `<folder>/<file>.script`, relative to agy-real/. */
  script: string;
  /** What the run is. */
  kind: 'pre-init' | 'print-command';
}

const J12 = 'joiomi-playbook-plugin-agy-1.2.17';
const J13 = 'joiomi-playbook-plugin-agy-1.3.1';
const JD = 'jdiazromeral-agy-plugin-cc';
/** agy 1.3.1 (two 1.3.2), stdin stream-json runs as `.script` files (see its SOURCE.txt). */
export const LB = 'littlebearapps-untether-agy-1.3.1';
/** agy 1.2.13 on Windows (see its SOURCE.txt). */
export const PL = 'unnamed-plenipo-agy-1.2.13';
/** Google's agy_acp_server 1.1.1: ACP `session/update` lines, replayed by test/connection/acp/agy-acp-server*.test.ts (see its SOURCE.txt). */
export const ACP_SERVER = 'mluigi-htui-agy-acp-server-1.1.1';
const SCRUB =
  "the capturer's path scrub rewrote `response` but missed paths split across text deltas (SOURCE.txt)";

export const CAPTURES: Capture[] = [
  { stdout: `${J12}/denied-command.stdout`, status: 'denied' },
  { stdout: `${J12}/error-missing-event.stdout`, status: 'error' },
  {
    stdout: `${J12}/error-model-effort-conflict.stdout`,
    stderr: `${J12}/error-model-effort-conflict.stderr`,
    status: 'error',
  },
  { stdout: `${J12}/print-timeout.stdout`, stderr: `${J12}/print-timeout.stderr`, status: 'timeout' },
  // SOURCE.txt: the verbatim end of a real stream, exit 3.
  {
    stdout: `${J12}/quota-exhausted.stdout`,
    stderr: `${J12}/quota-exhausted.stderr`,
    exit: 3,
    status: 'quota_exhausted',
  },
  // `agy -p /quota --output-format json`: a bare result carrying `command`.
  { stdout: `${J12}/quota.stdout`, status: 'success' },
  { stdout: `${J12}/success-pong.stdout`, status: 'success' },
  { stdout: `${J12}/success-tools.stdout`, status: 'success' },
  { stdout: `${J12}/web-tool.stdout`, status: 'success' },
  { stdout: `${J13}/denied-command.stdout`, status: 'denied' },
  { stdout: `${J13}/error-missing-event.stdout`, status: 'error' },
  { stdout: `${J13}/error-model-rejected.stdout`, status: 'error' },
  // 1.3.1's stderr was not kept; its README says the line is the same as 1.2.17's. Classified from stdout.
  { stdout: `${J13}/print-timeout.stdout`, status: 'timeout' },
  { stdout: `${J13}/quota.stdout`, status: 'success' },
  { stdout: `${J13}/success-pong.stdout`, status: 'success' },
  { stdout: `${J13}/success-tools.stdout`, status: 'success' },
  { stdout: `${JD}/adversarial_review-2026-07-30-run1.ndjson`, status: 'success' },
  { stdout: `${JD}/agent_fallback-2026-08-02-run1.ndjson`, status: 'success' },
  { stdout: `${JD}/command_result-2026-09-20-run1.ndjson`, status: 'success' },
  { stdout: `${JD}/denied_actions-2026-09-20-run1.ndjson`, status: 'denied' },
  // SOURCE.txt: `--print-timeout 5s` expiry, exit 1 (1.1.9's print timeout is an ERROR).
  { stdout: `${JD}/error_result-2026-08-02-run1.ndjson`, exit: 1, status: 'timeout' },
  {
    stdout: `${JD}/resume-2026-08-02-run1.ndjson`,
    status: 'success',
    usageNotWhole: 'a resumed conversation: result.usage covers its 3 turns (num_turns 3)',
  },
  { stdout: `${JD}/resume_fallback-2026-08-02-run1.ndjson`, status: 'success' },
  { stdout: `${JD}/stream_events-2026-08-02-run1.ndjson`, status: 'success' },
  { stdout: `${LB}/ask_question_nohook.script`, exit: 0, status: 'success' },
  { stdout: `${LB}/background_held.script`, exit: 0, status: 'success' },
  { stdout: `${LB}/continue_fresh.script`, exit: 0, status: 'success' },
  {
    stdout: `${LB}/continue_workspace.script`,
    exit: 0,
    status: 'success',
    usageNotWhole: 'a continued conversation: result.usage covers its 2 turns (num_turns 2)',
  },
  {
    stdout: `${LB}/hook_deny_bypass.script`,
    exit: 0,
    status: 'denied',
    hookDenied: 1,
    textNotResponse: SCRUB,
  },
  // Replayed without the SDK's interrupt: agy's own ERROR "interrupted" reads as interrupted.
  { stdout: `${LB}/interrupted_sigint.script`, exit: 1, status: 'interrupted' },
  { stdout: `${LB}/interrupted_sigterm.script`, exit: 1, status: 'interrupted' },
  { stdout: `${LB}/json_schema_finish.script`, exit: 0, status: 'success' },
  { stdout: `${LB}/ok.script`, exit: 0, status: 'success' },
  {
    stdout: `${LB}/resume_after_interrupt.script`,
    exit: 0,
    status: 'success',
    usageNotWhole: 'a resumed conversation: result.usage covers its 2 turns (num_turns 2)',
  },
  { stdout: `${LB}/slash_prompt_literal.script`, exit: 0, status: 'success' },
  { stdout: `${LB}/stream_slash_fatal.script`, exit: 2, status: 'error' },
  { stdout: `${LB}/subagent.script`, exit: 0, status: 'success', textNotResponse: SCRUB },
  { stdout: `${LB}/tools_denied.script`, exit: 0, status: 'denied' },
  { stdout: `${LB}/unknown_conversation.script`, exit: 0, status: 'success' },
  { stdout: `${LB}/write_ok_shell_denied.script`, exit: 0, status: 'denied' },
  { stdout: `${PL}/e3-plan-sandbox-ok.ndjson`, status: 'success' },
  {
    stdout: `${PL}/e3-resume-conversation.ndjson`,
    status: 'success',
    usageNotWhole: 'a resumed conversation: result.usage covers its 2 turns (num_turns 2)',
  },
  { stdout: `${PL}/e9-strict-denied.excerpt.ndjson`, status: 'denied' },
];

/** The `.script` captures that are not one stdin turn. */
export const SCRIPT_RUNS: ScriptRun[] = [
  { script: `${LB}/effort.script`, kind: 'print-command' },
  { script: `${LB}/invalid_model.script`, kind: 'pre-init' },
  { script: `${LB}/model.script`, kind: 'print-command' },
  { script: `${LB}/unauth.script`, kind: 'pre-init' },
];

/** Whether a capture is a `.script` file (replayed with test/fixtures/replay-script-agy.mjs). */
export const isScript = (file: string): boolean => file.endsWith('.script');

/** A `.script` capture's entries, in order. */
export function scriptEntries(file: string): { kind: string; text: string }[] {
  return readFileSync(join(AGY_REAL, file), 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => ({ kind: l.slice(0, l.indexOf(':')), text: l.slice(l.indexOf(':') + 1) }));
}

/** A capture's stdout lines as agy wrote them (the `out:` entries of a `.script`). */
export function captureRawLines(file: string): string[] {
  if (isScript(file))
    return scriptEntries(file)
      .filter((e) => e.kind === 'out')
      .map((e) => e.text);
  return readFileSync(join(AGY_REAL, file), 'utf8')
    .split('\n')
    .filter((l) => l.length > 0);
}

/** The parsed JSON lines of a capture. */
export function captureLines(file: string): Record<string, unknown>[] {
  if (isScript(file)) {
    return scriptEntries(file)
      .filter((e) => e.kind === 'out')
      .map((e) => JSON.parse(e.text) as Record<string, unknown>);
  }
  return readFileSync(join(AGY_REAL, file), 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The capture's result payload (enveloped, or bare for `--output-format json`). */
export function captureResult(file: string): Record<string, unknown> {
  for (const line of captureLines(file)) {
    if (line.event === 'result') return line.result as Record<string, unknown>;
    if (line.event === undefined && typeof line.status === 'string') return line;
  }
  throw new Error(`${file} has no result`);
}

/** Every stdout capture on disk, so a new one cannot be silently left out of {@link CAPTURES}. */
export function stdoutFilesOnDisk(): string[] {
  const out: string[] = [];
  for (const folder of [J12, J13, JD, LB, PL]) {
    const dir = join(AGY_REAL, folder);
    for (const name of readdirNames(dir)) {
      if (name.endsWith('.stdout') || name.endsWith('.ndjson') || name.endsWith('.script'))
        out.push(`${folder}/${name}`);
    }
  }
  return out.sort();
}

/**
 * The names in a folder of the captures, or none when the captures are not here: safe to call while vitest
 * collects a file (a `describe` body runs then, even when the block is skipped).
 */
export function captureNames(folder: string): string[] {
  return readdirNames(join(AGY_REAL, folder));
}

function readdirNames(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir) : [];
}
