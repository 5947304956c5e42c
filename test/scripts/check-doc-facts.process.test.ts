// The docs' export lists, counts and entry-point counts are the code's (scripts/check-doc-facts.mjs, also in
// `npm run lint`): the check passes on the repository and its self-test catches a missing name, a stale name,
// a wrong count and a wrong "N entry points".
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const script = join(root, 'scripts/check-doc-facts.mjs');

describe('check-doc-facts', () => {
  it('docs/api-reference.md lists every export of the nine entry points with the right counts', () => {
    const run = spawnSync(process.execPath, [script], { cwd: root, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/check-doc-facts: ok \(9 entry points/);
    expect(run.status).toBe(0);
  }, 120_000);

  it('its parser catches what it is for (self-test)', () => {
    const run = spawnSync(process.execPath, [script, '--self-test'], { cwd: root, encoding: 'utf8' });
    expect(run.stdout.trim()).toBe('check-doc-facts self-test: ok');
    expect(run.status).toBe(0);
  });
});
