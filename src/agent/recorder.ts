/**
 * The cassette recorder of a session, when `record` or `AGY_SDK_RECORD` asks for one (loaded then, never with
 * the package). It is told every credential the session holds: the environment the backend gives the agent, the
 * MCP servers' `env` and `headers`, the gateway's upstream key and headers.
 */

import type { CassetteRecorder } from '../cassette/recorder.js';
import type { Logger } from '../logger.js';
import type { AgentConfig } from './config.js';

/** What the recorder is built from. */
export interface RecorderParts {
  /** The Agent's config (`record`, `cwd`, `dataDir`, `mcpServers`, `provider`). */
  config: AgentConfig;
  /** The user's workspaces (redacted as paths). */
  workspaces: readonly string[];
  /** The backend being recorded. */
  backend: 'agy' | 'acp';
  /** The environment the backend gives the agent (over the process's). */
  env: Record<string, string | undefined>;
  /** Provider mode is on (its upstream key and headers are credentials to redact). */
  provider: boolean;
  /** Where a failing write or a sanitizer warning is told. */
  logger: Logger;
}

/** The recorder, or undefined when nothing asks for one. */
export async function createRecorder(p: RecorderParts): Promise<CassetteRecorder | undefined> {
  const { config, logger } = p;
  const envDir = process.env.AGY_SDK_RECORD;
  const record = config.record ?? (envDir ? { dir: envDir } : undefined);
  if (!record) return undefined;
  const upstream = p.provider ? config.provider : undefined;
  const { CassetteRecorder } = await import('../cassette/recorder.js');
  return new CassetteRecorder(
    record,
    {
      workspaces: [...p.workspaces],
      cwd: config.cwd,
      dataDir: config.dataDir,
      env: { ...process.env, ...p.env },
      mcpServers: config.mcpServers,
      credentials: upstream && {
        'provider-api-key': upstream.apiKey,
        ...Object.fromEntries(Object.entries(upstream.headers ?? {}).map(([k, v]) => [`provider-${k}`, v])),
      },
      backend: p.backend,
    },
    (error) => logger.error('writing the cassette failed', error),
    (warning) => logger.warn(warning),
  );
}
