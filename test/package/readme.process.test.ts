// Every ```ts block of README.md runs as shown, offline, and prints what it claims. Each block holds one
// `// prints: <text>` comment; the block is transpiled as is (imports of 'agy-sdk' and 'zod' resolve to this
// package and its zod from a scratch consumer directory) and run in a child Node process whose last stdout
// line must be <text>. Blocks written for the real agy get `AGY_PATH` pointed at the simulator (its built-in
// script: it calls the agent's own tool, if any, and echoes), as a user without agy would run the offline section.
import { spawn } from 'node:child_process';
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
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const built = existsSync(join(root, 'dist/testing/simulator/main.js'));
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);

// Made by a hook, not while vitest collects the file (a `vitest list` would leave it behind).
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agy-sdk-readme-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function setUp(): void {
  if (existsSync(join(dir, 'node_modules'))) return;
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(root, join(dir, 'node_modules/agy-sdk'));
  symlinkSync(join(root, 'node_modules/zod'), join(dir, 'node_modules/zod'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'readme-consumer', type: 'module' }));
}

function claim(block: string): string {
  const claims = [...block.matchAll(/\/\/ prints: (.+)$/gm)].map((m) => m[1]!.trim());
  expect(claims, 'one `// prints: …` comment per block').toHaveLength(1);
  return claims[0]!;
}

function run(
  file: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [file], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe.skipIf(!built)('README snippets', () => {
  it('has ts blocks, each with one claim', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    for (const block of blocks) claim(block);
  });

  // Concurrent: each block is its own file and process; most of a run is start-up and waiting, not CPU.
  it.concurrent.each(blocks.map((block, index) => [index + 1, block] as const))(
    'block %i runs offline and prints what it claims',
    async (index, block) => {
      setUp();
      const expected = claim(block);
      const js = ts.transpileModule(block, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      const file = join(dir, `block-${index}.mjs`);
      writeFileSync(file, js);
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        AGY_PATH: join(root, 'dist/testing/simulator/main.js'),
      };
      delete env.AGY_SIM_SCENARIO;
      const { code, stdout, stderr } = await run(file, env);
      const lines = stdout.trim().split('\n');
      expect({ code, last: lines.at(-1), stderr }).toMatchObject({ code: 0, last: expected });
      // The tour's own tool makes the round trip offline: the simulator's default script calls it
      // (src/testing/simulator/default-script.ts, docs/reference/mcp.md#calling-mcp-tools) and echoes its answer.
      if (block.includes("name: 'get_weather'")) {
        expect(stderr).toContain('tool done: get_weather');
        expect(stderr).toContain('called get_weather');
        expect(stdout).toContain('Your tool get_weather returned: city: sunny, 21 °C');
      }
      // A block with a postTurn hook sends one prompt: one turn (a steer before any turn would add one).
      if (block.includes("console.log('turn done:'"))
        expect(lines.filter((l) => l.startsWith('turn done:'))).toHaveLength(1);
    },
    120_000,
  );
});
