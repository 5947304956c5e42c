/**
 * The agy backend's factory: what the Agent calls to build it (`createAgyConnection(options, host)`), so the
 * Agent forwards its validated groups and never knows how agy is assembled.
 */
import type { ConnectionHost } from '../host.js';
import { AgyConnection } from './agy-connection.js';
import type { AgyConnectionOptions } from './agy-session.js';

/** The agy backend's options, with provider mode's adjustment to the session. */
export interface AgyFactoryOptions extends AgyConnectionOptions {
  /**
   * Provider mode: agy reads `modelProvider` from its settings and talks to the SDK's gateway with its token, so
   * the session runs under a shadow HOME with the gateway's settings laid over `session.settingsOverrides`.
   */
  provider?: { readonly settingsOverrides: Readonly<Record<string, unknown>> } | undefined;
}

/** Builds the agy backend (its session runtime, hook relays and process) for one Agent. */
export function createAgyConnection(
  options: AgyFactoryOptions,
  host: ConnectionHost,
): Promise<AgyConnection> {
  const { provider, ...o } = options;
  if (!provider) return AgyConnection.create(o, host);
  const session = {
    ...o.session,
    isolation: 'shadow-home' as const,
    settingsOverrides: { ...o.session.settingsOverrides, ...provider.settingsOverrides },
  };
  return AgyConnection.create({ ...o, session }, host);
}
