/**
 * Loads the ACP backend when an Agent starts on it. The ACP SDK (`@agentclientprotocol/sdk`) is an optional
 * peer, as only this backend uses it: without it, `start()` rejects with a `MissingPeerError` naming the install
 * command, and the rest of the package never loads it.
 */
import { MissingPeerError } from '../errors.js';
import { missingPeer } from '../internal/peers.js';

/** The ACP backend's optional peer and the command that installs it. */
export const ACP_PEER = '@agentclientprotocol/sdk';
export const ACP_INSTALL = `npm install ${ACP_PEER}`;

/** The ACP backend (its face, `connection/acp/index.ts`); a missing ACP SDK becomes a `MissingPeerError`. */
export async function loadAcpBackend(): Promise<typeof import('../connection/acp/index.js')> {
  try {
    return await import('../connection/acp/index.js');
  } catch (error) {
    if (missingPeer(error, [ACP_PEER]))
      throw new MissingPeerError(ACP_PEER, "the ACP backend (backend: { kind: 'acp' })", ACP_INSTALL, {
        cause: error,
      });
    throw error;
  }
}
