#!/usr/bin/env node
/**
 * The Node hook relay, used when `curl` is not installed. agy runs a hook command with the hook's JSON on
 * stdin and reads the reply on stdout. This posts stdin to the session listener and prints the answer.
 *
 * Usage: `hook-relay.js <config.json>`; the config file (mode 0600) holds `{ "url", "event", "timeoutMs" }`.
 * The URL carries the session token, so it is read from a private file, never from argv.
 * On any failure a `PreToolUse` hook prints an explicit deny (fail closed); other events print `{}`.
 */
import { readFileSync } from 'node:fs';

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

async function main(): Promise<void> {
  let config: RelayConfig | undefined;
  try {
    config = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as RelayConfig;
    const body = await readStdin();
    const response = await fetch(config.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(config.timeoutMs),
    });
    const text = await response.text();
    process.stdout.write(
      response.ok && text ? text : fallback(config.event, `listener answered ${response.status}`),
    );
  } catch (err) {
    process.stdout.write(fallback(config?.event, err instanceof Error ? err.message : String(err)));
  }
}

void main();
