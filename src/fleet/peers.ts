/**
 * The fleet's optional peers, `bullmq` and `ioredis`, are loaded only when a queue or a worker is created, so
 * `import('agy-sdk/fleet')` (or `require`) always works, and a missing peer is a `MissingPeerError` naming the
 * package and the install command instead of Node's bare "Cannot find package 'bullmq'".
 */
import { MissingPeerError } from '../errors.js';
import { missingPeer } from '../internal/peers.js';

/** The peers and the command that installs them. */
export const FLEET_PEERS = ['bullmq', 'ioredis'] as const;
export const FLEET_INSTALL = 'npm install bullmq ioredis';

/** The package Node could not find, when `error` is a module-not-found error for one of the fleet's peers. */
export function missingFleetPeer(error: unknown): string | undefined {
  return missingPeer(error, FLEET_PEERS);
}

/** Runs `load` (a dynamic import of fleet code); a missing peer becomes a `MissingPeerError`. */
export async function loadWithPeers<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const peer = missingFleetPeer(error);
    if (peer) throw new MissingPeerError(peer, 'agy-sdk/fleet', FLEET_INSTALL, { cause: error });
    throw error;
  }
}
