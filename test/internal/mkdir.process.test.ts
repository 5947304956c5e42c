/**
 * A data dir where nothing can be created (/proc refuses new entries with ENOENT, on which Node's recursive
 * mkdir retries forever) fails the start with a ConfigError naming dataDir, instead of hanging.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Agent, ConfigError } from '../../src/index.js';
import { mkdirParents } from '../../src/internal/mkdir.js';
import { silentLogger } from '../../src/testing/index.js';
import { sandbox } from '../helpers/sandbox.js';

describe.skipIf(!existsSync('/proc/self'))('dataDir on /proc', () => {
  it('mkdirParents throws the error where mkdir -p would loop', () => {
    expect(() => mkdirParents('/proc/agy-sdk-test/sessions', 0o700)).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    );
  });

  it('an Agent with dataDir under /proc fails its start with a ConfigError naming dataDir', async () => {
    const box = await sandbox();
    try {
      const agent = new Agent(
        await box.agentConfig(undefined, { dataDir: '/proc/agy-sdk-data', logger: silentLogger }),
      );
      const start = agent.start();
      await expect(start).rejects.toBeInstanceOf(ConfigError);
      await expect(start).rejects.toMatchObject({ field: 'dataDir' });
      await agent.close();
    } finally {
      await box.cleanup();
    }
  }, 30_000);
});
