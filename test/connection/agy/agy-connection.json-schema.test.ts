// A per-turn JSON Schema needs a way to write it (docs/reference/stream-json.md#structured-output: agy reads
// --json-schema only at launch); without one the transport refuses the turn as misuse, before any process starts.
import { describe, expect, it } from 'vitest';
import { AgyConnection } from '../../../src/connection/agy/agy-connection.js';
import { UsageError } from '../../../src/errors.js';

describe('AgyConnection per-turn jsonSchema', () => {
  it('refuses a turn with jsonSchema when no writeJsonSchema is configured, and stays usable', async () => {
    const conn = new AgyConnection({ cwd: process.cwd(), addDirs: [], agyPath: '/nonexistent/agy' });
    await expect(
      conn.runTurn({ text: ['x'], jsonSchema: { type: 'object' } }, { onStep: () => {} }),
    ).rejects.toBeInstanceOf(UsageError);
    expect(conn.isIdle).toBe(true);
    expect(conn.stats.processesStarted).toBe(0);
    await conn.close();
  });
});
