// Multimodal prompts: mix text with Image, Document, Audio and Video parts. agy's print mode takes text only,
// so the SDK writes each part to a private file (0600, in the session directory) and names it in the prompt,
// where agy's file tools read it. Under `workspaces` those files are the one thing outside them the model may
// read (view_file, exactly these files). A MIME type agy cannot take is a ContentError before anything is sent.
// Run after `npm run build`: node examples/08-multimodal.mjs
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Agent, ContentError, fromFile, hooks, Image } from 'agy-sdk';
import { simulatorPath } from 'agy-sdk/testing';

// A 1×1 PNG, so the example needs no image on disk.
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);
const dir = await mkdtemp(join(tmpdir(), 'agy-sdk-example-'));
const csv = join(dir, 'sales.csv');
await writeFile(csv, 'month,total\nJan,10\nFeb,14\n');

try {
  new Image({ data: PIXEL, mimeType: 'image/tiff' });
} catch (err) {
  if (!(err instanceof ContentError)) throw err;
  console.log(`rejected up front: ${err.message}`);
}

const agent = new Agent({
  agyPath: process.env.AGY_PATH ?? simulatorPath(),
  workspaces: [dir],
  // A preTurn hook sees the prompt as agy gets it: the text, then one line per attached file.
  hooks: [
    hooks.preTurn((prompt) => {
      for (const [, kind, mimeType] of prompt.matchAll(/\[Attached (\w+) \(([^)]+)\)/g))
        console.log(`  attached: ${kind} (${mimeType})`);
      return true;
    }),
  ],
});
try {
  const response = await agent.chat([
    'Describe the image and total the CSV.',
    new Image({ data: PIXEL, mimeType: 'image/png', name: 'pixel.png', description: 'a test pixel' }),
    await fromFile(csv), // the part type comes from the extension (text/csv → Document)
  ]);
  // The model reads each attachment with view_file (the simulator does so for every file the prompt names).
  for await (const call of response.toolResults()) {
    if (call.name !== 'view_file') continue;
    const outcome = call.error ? `✗ ${call.error.message}` : `✓ ${call.output}`;
    console.log(`  ${call.name} ${basename(String(call.args.AbsolutePath ?? ''))} ${outcome}`);
  }
  const result = await response.result();
  console.log(`status: ${result.status}`);
} finally {
  await agent.close();
  await rm(dir, { recursive: true, force: true });
}
