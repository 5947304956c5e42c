// The simulator's fetch (testing/simulator/http-fetch.ts) sends an https: URL over TLS with Node's default
// verification (node:https, required on first use): against a TLS server on 127.0.0.1 with a throwaway
// self-signed certificate (openssl, in a private temp dir removed at once), the request is refused for its
// certificate and never reaches the handler.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHttpFetch } from '../../../src/testing/simulator/http-fetch.js';

/** A self-signed certificate for 127.0.0.1, or undefined without openssl. */
function selfSigned(): { key: Buffer; cert: Buffer } | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'agy-sdk-tls-'));
  try {
    const keyFile = join(dir, 'key.pem');
    const certFile = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'].concat(
        ['-subj', '/CN=127.0.0.1', '-keyout', keyFile, '-out', certFile],
      ),
      { stdio: 'ignore' },
    );
    return { key: readFileSync(keyFile), cert: readFileSync(certFile) };
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const tls = selfSigned();

describe.skipIf(!tls)('the simulator fetch over node:https', () => {
  it('sends an https: URL over TLS, verified: a self-signed server is refused for its certificate', async () => {
    let reached = 0;
    const server = createServer(tls!, (_req, res) => {
      reached++;
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { fetch, close } = createHttpFetch();
    try {
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      await expect(fetch(url, { method: 'POST', body: '{}' })).rejects.toMatchObject({
        code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
      });
      expect(reached).toBe(0);
    } finally {
      close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
