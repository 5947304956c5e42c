#!/usr/bin/env node
/**
 * The Node hook relay, used when neither `curl` nor `bash` is installed (and by the bash relay when its bash
 * has no `/dev/tcp`). agy runs a hook command with the hook's JSON on
 * stdin and reads the reply on stdout. This posts stdin to the session listener and prints the answer.
 *
 * Usage: `hook-relay.js <config.json>`; the config file (mode 0600) holds `{ "url", "event", "timeoutMs" }`.
 * The URL carries the session token, so it is read from a private file, never from argv.
 * On any failure a `PreToolUse` hook prints an explicit deny (fail closed); other events print `{}`.
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';

interface RelayConfig {
  url: string;
  event: string;
  timeoutMs: number;
}

function readStdin(): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on('data', (c: Buffer) => chunks.push(c));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks)));
    process.stdin.on('error', reject);
  });
}

function fallback(event: string | undefined, why: string): string {
  return event === 'PreToolUse'
    ? JSON.stringify({ decision: 'deny', reason: `agy-sdk hook relay failed: ${why}` })
    : '{}';
}

/** POSTs `body` with `node:http` (much faster to load than `fetch` in a fresh process). */
function post(url: string, body: Buffer, timeoutMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json' }, timeout: timeoutMs },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

async function main(): Promise<void> {
  let config: RelayConfig | undefined;
  try {
    config = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as RelayConfig;
    const response = await post(config.url, await readStdin(), config.timeoutMs);
    const ok = response.status >= 200 && response.status < 300;
    process.stdout.write(
      ok && response.text ? response.text : fallback(config.event, `listener answered ${response.status}`),
    );
  } catch (err) {
    process.stdout.write(fallback(config?.event, err instanceof Error ? err.message : String(err)));
  }
}

void main();
