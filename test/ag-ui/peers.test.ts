// A missing AG-UI peer is a MissingPeerError naming the package and the install command, from Node's own
// module-not-found error (the peers are imported from a directory where they cannot be found).
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AG_UI_INSTALL, loadAgUiPeers } from '../../src/ag-ui/peers.js';
import { MissingPeerError } from '../../src/errors.js';

let dir: string;
let importFrom: (name: string) => Promise<Record<string, unknown>>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agy-sdk-ag-ui-peers-'));
  // Resolved from an empty directory: Node's genuine "Cannot find module" for the peer.
  const require = createRequire(join(dir, 'probe.js'));
  importFrom = async (name) => require(name);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadAgUiPeers', () => {
  it('loads the installed peers', async () => {
    const peers = await loadAgUiPeers();
    expect(peers.EventType.RUN_STARTED).toBe('RUN_STARTED');
    expect(typeof peers.EventEncoder).toBe('function');
  });

  it('a peer Node cannot find is a MissingPeerError with the install command', async () => {
    const error = await loadAgUiPeers(importFrom).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingPeerError);
    expect(error).toMatchObject({ code: 'peer_missing', install: AG_UI_INSTALL });
    expect(['@ag-ui/core', '@ag-ui/encoder']).toContain((error as MissingPeerError).packageName);
    expect((error as Error).message).toContain('npm install @ag-ui/core @ag-ui/encoder');
  });

  it('any other failure is passed through as it is', async () => {
    const boom = new Error('boom');
    await expect(loadAgUiPeers(() => Promise.reject(boom))).rejects.toBe(boom);
  });
});
