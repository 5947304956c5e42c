/**
 * ACP presets: the command each ready-made agent is started with, and its setup. Gemini CLI speaks ACP with
 * `gemini --acp`; Antigravity ships `agy_acp_server` (docs/reference/acp.md#setup). `command` and
 * `args` in the backend config override the preset's. Finding or installing the agent is the user's job: the
 * command is looked up on PATH.
 */
import { isAbsolute } from 'node:path';
import { StartError } from '../../errors.js';
import { isRecord } from '../../internal/guards.js';
import { findOnPath, isExecutableFile } from '../../internal/which.js';
import type { AcpBackendConfig, AcpPreset } from './config.js';

/** A preset's command line. */
export const PRESET_COMMANDS: Readonly<Record<AcpPreset, { command: string; args: readonly string[] }>> = {
  'gemini-cli': { command: 'gemini', args: ['--acp'] },
  'agy-acp': { command: 'agy_acp_server', args: [] },
};

/** The command line an ACP backend config starts: the preset's, with `command` / `args` overriding it. */
export function acpCommandLine(backend: AcpBackendConfig): { command: string; args: string[] } {
  const preset = backend.preset ? PRESET_COMMANDS[backend.preset] : undefined;
  const command = backend.command ?? preset?.command;
  // Validation requires a preset or a command, so one of them is set here.
  return { command: command ?? '', args: [...(backend.args ?? preset?.args ?? [])] };
}

/** Resolves `command` (a path, or a name on PATH) to an executable; a `StartError` says where it looked. */
export function resolveCommand(command: string, env: NodeJS.ProcessEnv): string {
  if (command.includes('/')) {
    if (isAbsolute(command) && isExecutableFile(command)) return command;
    throw new StartError(
      `ACP agent ${JSON.stringify(command)} is not an executable file (give an absolute path)`,
      {
        exitCode: null,
        signal: null,
        stderrTail: '',
      },
    );
  }
  const { found, tried } = findOnPath([command], env);
  if (found) return found;
  throw new StartError(
    `ACP agent ${JSON.stringify(command)} not found on PATH (tried ${tried.length ? tried.join(', ') : 'nothing'}); set backend.command`,
    { exitCode: null, signal: null, stderrTail: '' },
  );
}

/**
 * Gemini CLI's settings for a headless run in a shadow HOME (`~/.gemini/settings.json`, its own path, not
 * agy's): API-key auth selected when `GEMINI_API_KEY` is set, no auto-update, no usage statistics, no
 * telemetry (docs/reference/acp.md#setup). `overrides` (the user's `settingsOverrides`) are
 * merged over them.
 */
export function geminiCliSettings(
  env: NodeJS.ProcessEnv,
  overrides: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const base: Record<string, unknown> = {
    ...(env.GEMINI_API_KEY && { security: { auth: { selectedType: 'gemini-api-key' } } }),
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  };
  return deepMerge(base, overrides ?? {});
}

/** Environment Gemini CLI needs to run headless and trusted in the workspace, under any HOME. */
export const GEMINI_CLI_ENV: Readonly<Record<string, string>> = {
  GEMINI_CLI_TRUST_WORKSPACE: 'true',
  GEMINI_TELEMETRY_ENABLED: 'false',
  NO_COLOR: '1',
};

function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prev = out[key];
    out[key] = isRecord(prev) && isRecord(value) ? deepMerge(prev, value) : value;
  }
  return out;
}
