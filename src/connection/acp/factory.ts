/**
 * The ACP backend's factory: what the Agent calls to build it (`createAcpConnection(options, host)`), from the
 * user's `backend` config (its preset or command line) and the options the Agent derives for this run.
 */
import type { ConnectionHost } from '../host.js';
import { containedTap } from '../wire-tap.js';
import { AcpConnection } from './acp-connection.js';
import type { AcpBackendConfig } from './config.js';
import type { AcpConnectionOptions } from './options.js';
import { acpCommandLine } from './presets.js';

/** The ACP backend's options: the user's `backend` config, and what this run derives (env, cwd, tools, …). */
export interface AcpFactoryOptions extends Omit<AcpConnectionOptions, 'command' | 'args' | 'preset'> {
  /** `AgentConfig.backend`: the preset or the agent's command line. */
  backend: AcpBackendConfig;
}

/** Builds the ACP backend for one Agent; a throwing wire tap (the cassette recorder) is only logged. */
export function createAcpConnection(
  options: AcpFactoryOptions,
  host: ConnectionHost,
): Promise<AcpConnection> {
  const { backend, ...o } = options;
  const { command, args } = acpCommandLine(backend);
  const tap = o.tap && containedTap(o.tap, (what, error) => o.logger.error(`${what} threw`, error));
  return AcpConnection.create({ ...o, command, args, preset: backend.preset, tap }, host);
}
