/**
 * The default script's attachment reads: which paths a prompt's attachment blocks name (the blocks
 * `content/materialize.ts` writes), and `view_file` run for real with agy's summary output
 * (agy-real/joiomi-playbook-plugin-agy-1.3.1/success-tools.stdout: `"3 lines, 44 bytes"`).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Document, Image } from '../../../src/content/content.js';
import { materialize } from '../../../src/content/materialize.js';
import { attachedPaths } from '../../../src/testing/simulator/default-script.js';
import { liveTools, viewFile, viewFileAction } from '../../../src/testing/simulator/view-file.js';

let dir: string;
beforeAll(async () => {
  // A directory with a space and a dash, as a macOS data dir (`Application Support`) would give.
  dir = await mkdtemp(join(tmpdir(), 'agy sim — view-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('attachedPaths', () => {
  it("finds every file the SDK's attachment blocks name, in order, with or without a description", async () => {
    const blocks = await materialize(
      [
        'Look at [Attached nothing] and these:',
        new Image({
          data: Buffer.from([1]),
          mimeType: 'image/png',
          name: 'a.png',
          description: 'a — chart. x',
        }),
        new Document({ data: Buffer.from('x'), mimeType: 'text/csv', name: 'b.csv' }),
      ],
      async () => dir,
    );
    const paths = attachedPaths(blocks.join('\n'));
    expect(paths).toHaveLength(2);
    expect(paths[0]).toMatch(/^.*agy sim — view-.*\/\d+-a\.png$/);
    expect(paths[1]).toMatch(/\/\d+-b\.csv$/);
    expect(paths.every((p) => p.startsWith(dir))).toBe(true);
  });

  it('finds none in a prompt without attachment blocks', () => {
    expect(attachedPaths('Read /etc/hostname with view_file.')).toEqual([]);
  });
});

describe('viewFile', () => {
  it("reads the real file and reports agy's summary", async () => {
    const file = join(dir, 'notes.txt');
    await writeFile(file, 'one\ntwo\nthree');
    expect(await viewFile({ AbsolutePath: file })).toEqual({ output: '3 lines, 13 bytes' });
    await writeFile(file, 'one\ntwo\n');
    expect(await viewFile({ AbsolutePath: file })).toEqual({ output: '2 lines, 8 bytes' });
    await writeFile(file, '');
    expect(await viewFile({ AbsolutePath: file })).toEqual({ output: '0 lines, 0 bytes' });
  });

  it('fails as a TOOL_ERROR for a missing file, a directory or no path', async () => {
    expect(await viewFile({ AbsolutePath: join(dir, 'missing') })).toMatchObject({
      error: { type: 'TOOL_ERROR', message: expect.stringMatching(/ENOENT/) },
    });
    expect(await viewFile({ AbsolutePath: dir })).toMatchObject({ error: { type: 'TOOL_ERROR' } });
    expect(await viewFile({})).toMatchObject({ error: { message: /AbsolutePath/ } });
  });

  it('viewFileAction is a view_file tool action that runs for real', () => {
    const action = viewFileAction('/x/y.png');
    expect(action).toEqual({ tool: { name: 'view_file', parameters: { AbsolutePath: '/x/y.png' } } });
    expect(liveTools.get(action)).toBe(viewFile);
  });
});
