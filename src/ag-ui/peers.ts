/**
 * The AG-UI endpoint's optional peers, `@ag-ui/core` (event types, the `RunAgentInput` schema) and
 * `@ag-ui/encoder` (server-sent events), loaded when a handler is created: `import('agy-sdk/ag-ui')` always
 * works, and a missing peer is a `MissingPeerError` naming the install command.
 */
import { MissingPeerError } from '../errors.js';
import { missingPeer } from '../internal/peers.js';

/** The peers and the command that installs them. */
export const AG_UI_PEERS = ['@ag-ui/core', '@ag-ui/encoder'] as const;
/** The install command a `MissingPeerError` names. */
export const AG_UI_INSTALL = 'npm install @ag-ui/core @ag-ui/encoder';

/** What the handler uses of the peers. */
export interface AgUiPeers {
  /** `@ag-ui/core`'s `EventType` enum. */
  EventType: typeof import('@ag-ui/core').EventType;
  /** `@ag-ui/core/schemas`'s `RunAgentInputSchema` (zod), which checks a request body. */
  RunAgentInputSchema: typeof import('@ag-ui/core/schemas').RunAgentInputSchema;
  /** `@ag-ui/encoder`'s `EventEncoder`. */
  EventEncoder: typeof import('@ag-ui/encoder').EventEncoder;
}

/** Loads the peers; a missing one is a `MissingPeerError`. `load` is replaceable for tests of that path. */
export async function loadAgUiPeers(
  load: (name: string) => Promise<Record<string, unknown>> = (name) => import(name),
): Promise<AgUiPeers> {
  try {
    const [core, schemas, encoder] = await Promise.all([
      load('@ag-ui/core'),
      load('@ag-ui/core/schemas'),
      load('@ag-ui/encoder'),
    ]);
    return {
      EventType: core.EventType as AgUiPeers['EventType'],
      RunAgentInputSchema: schemas.RunAgentInputSchema as AgUiPeers['RunAgentInputSchema'],
      EventEncoder: encoder.EventEncoder as AgUiPeers['EventEncoder'],
    };
  } catch (error) {
    const peer = missingPeer(error, AG_UI_PEERS);
    if (peer) throw new MissingPeerError(peer, 'agy-sdk/ag-ui', AG_UI_INSTALL, { cause: error });
    throw error;
  }
}
