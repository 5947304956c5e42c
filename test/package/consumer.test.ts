// The published shape: a consumer project type-checks against the built declarations (no skipLibCheck), the
// package resolves by name from its own root, and internals marked @internal are not in the declarations.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const dist = join(root, 'dist');
const built = existsSync(join(dist, 'index.d.ts'));
const dir = mkdtempSync(join(tmpdir(), 'agy-sdk-consumer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!built)('package', () => {
  it('type-checks a strict consumer against dist/*.d.ts, both entry points, with skipLibCheck off', () => {
    mkdirSync(join(dir, 'node_modules/@types'), { recursive: true });
    symlinkSync(root, join(dir, 'node_modules/agy-sdk'));
    for (const dep of ['zod', '@modelcontextprotocol', 'ajv'])
      symlinkSync(join(root, 'node_modules', dep), join(dir, 'node_modules', dep));
    symlinkSync(join(root, 'node_modules/@types/node'), join(dir, 'node_modules/@types/node'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module' }));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
        },
        include: ['main.ts'],
      }),
    );
    writeFileSync(
      join(dir, 'main.ts'),
      `import { Agent, type ChatResponse, hooks, policy, tool, type TurnResult } from 'agy-sdk';
import { simulatorPath, type Scenario } from 'agy-sdk/testing';
import { z } from 'zod';
const scenario: Scenario = { turns: [{ actions: [{ text: 'hi' }] }] };
const echo = tool({ name: 'echo', description: 'echo', input: z.object({ a: z.string() }) }, ({ a }) => a.toUpperCase());
const agent = new Agent({ agyPath: simulatorPath(), tools: [echo], policies: [policy.allowAll()], hooks: [hooks.postTurn(() => {})] });
const response: ChatResponse = await agent.chat('hi');
const result: TurnResult = await response.result();
export { result, scenario };
`,
    );
    const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], {
      encoding: 'utf8',
    });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  });

  it('resolves `agy-sdk` and `agy-sdk/testing` by name from the package root', () => {
    const out = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('agy-sdk'); const t = await import('agy-sdk/testing'); console.log(typeof m.Agent, typeof t.simulatorPath);",
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(out.stdout.trim()).toBe('function function');
  });

  it('keeps @internal members out of the declarations', () => {
    const response = readFileSync(join(dist, 'conversation/chat-response.d.ts'), 'utf8');
    expect(response).not.toMatch(/pushStep|finish\(/);
    const agent = readFileSync(join(dist, 'agent/agent.d.ts'), 'utf8');
    expect(agent).not.toMatch(/get runtime|get connection/);
  });
});
