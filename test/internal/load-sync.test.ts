// loadSync requires a package's ES module entry, so the instance it returns is the one `import` gives: one zod
// for the user's schemas and ours (the config schema, z.toJSONSchema of a user's responseSchema).
import * as mcpTypes from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import * as zodModule from 'zod/v4';
import { loadSync, zod } from '../../src/internal/load-sync.js';

describe('loadSync', () => {
  it("zod() is the very zod an import of 'zod/v4' gives (no second copy)", () => {
    expect(zod()).toBe(zodModule.z);
  });

  it("a package's ES module entry, the same instance as its import", () => {
    const types = loadSync<typeof mcpTypes>('@modelcontextprotocol/sdk/types.js');
    expect(types.ContentBlockSchema).toBe(mcpTypes.ContentBlockSchema);
  });

  it("a package that is not installed: Node's module-not-found error", () => {
    expect(() => loadSync('agy-sdk-no-such-package')).toThrow(/Cannot find (package|module)/);
  });
});
