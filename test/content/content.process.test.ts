// Multimodal prompts become files + text blocks (docs/reference/stream-json.md#text-blocks-only); structured output via --json-schema
// (docs/reference/stream-json.md#structured-output); system instructions as an always-on rule (docs/reference/plugins-and-config.md#rules).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Document, fromFile, Image } from '../../src/content/content.js';
import { ContentError, StructuredOutputError } from '../../src/errors.js';
import { useSandboxAgents } from '../helpers/agents.js';

const sb = useSandboxAgents();
const agentWith = sb.agentWith.bind(sb);

describe('multimodal content', () => {
  it('writes media parts to private files and sends text blocks naming them', async () => {
    const agent = await agentWith({
      turns: [{ expectPrompt: 'Attached image (image/png) at ', actions: [{ text: 'seen image' }] }],
    });
    const png = new Image({
      data: Buffer.from([0x89, 0x50, 0x4e, 0x47]),
      mimeType: 'image/png',
      description: 'a chart',
      name: '../../evil name.png',
    });
    const specPath = join(sb.box.root, 'spec.pdf');
    await writeFile(specPath, '%PDF-1.4 fake');
    const spec = await fromFile(specPath);
    expect(spec).toBeInstanceOf(Document);
    const r = await agent.chat(['Compare these:', png, spec]);
    expect(await r.text()).toBe('seen image');
    const dir = join(agent.sessionDir!, 'attachments');
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(2);
    expect(files.find((f) => f.endsWith('evil_name.png'))).toBeTruthy();
    expect(files.find((f) => f.endsWith('spec.pdf'))).toBeTruthy();
    for (const f of files) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const png2 = files.find((f) => f.endsWith('.png'))!;
    expect(readFileSync(join(dir, png2))).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  });

  it('turns parts into text blocks that name the file and its description', async () => {
    const { materialize } = await import('../../src/content/materialize.js');
    const blocks = await materialize(
      ['hi', new Image({ data: Buffer.from([1]), mimeType: 'image/webp', description: 'logo' })],
      async () => sb.box.root,
    );
    expect(blocks[0]).toBe('hi');
    expect(blocks[1]).toMatch(
      new RegExp(
        `^\\[Attached image \\(image/webp\\) at ${sb.box.root}/\\d+-attachment\\.webp — logo\\. Read it with view_file\\.\\]$`,
      ),
    );
  });

  it('rejects unsupported MIME types and unreadable files with ContentError', async () => {
    await expect(fromFile('/nonexistent/file.png')).rejects.toBeInstanceOf(ContentError);
    await expect(fromFile(join(sb.box.root, 'x.unknownext'))).rejects.toThrow(/MIME type/);
    expect(() => new Image({ data: 'nope' as unknown as Uint8Array, mimeType: 'image/png' })).toThrow(
      ContentError,
    );
  });
});

describe('structured output', () => {
  const Schema = z.object({ summary: z.string(), risk: z.enum(['low', 'high']) });

  it('passes --json-schema as a private file and returns the validated value', async () => {
    const agent = await agentWith(
      { turns: [{ actions: [{ text: 'done' }], end: { structuredOutput: { summary: 'ok', risk: 'low' } } }] },
      { responseSchema: Schema },
    );
    const r = await agent.chat('analyze');
    expect(await r.structuredOutput<z.infer<typeof Schema>>()).toEqual({ summary: 'ok', risk: 'low' });
    const schemaFile = join(agent.sessionDir!, 'response-schema.json');
    expect(statSync(schemaFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(schemaFile, 'utf8'))).toMatchObject({
      type: 'object',
      required: ['summary', 'risk'],
    });
    expect(readFileSync(`/proc/${agent.pid}/cmdline`, 'utf8').split('\0')).toEqual(
      expect.arrayContaining(['--json-schema', schemaFile]),
    );
  });
});

describe('per-turn responseSchema', () => {
  const argvOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  const Verdict = z.object({ verdict: z.enum(['yes', 'no']) });

  it("relaunches agy on the same conversation with the turn's --json-schema, then goes back", async () => {
    const agent = await agentWith(
      {
        turns: [
          { actions: [{ text: 'first' }], end: { structuredOutput: { a: 1 } } },
          { actions: [{ text: 'judged' }], end: { structuredOutput: { verdict: 'yes' } } },
          { actions: [{ text: 'third' }], end: { structuredOutput: { a: 3 } } },
        ],
      },
      { responseSchema: { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] } },
    );
    expect(await (await agent.chat('one')).structuredOutput()).toEqual({ a: 1 });
    const agentFile = join(agent.sessionDir!, 'response-schema.json');
    const firstPid = agent.pid!;
    expect(argvOf(firstPid)).toEqual(expect.arrayContaining(['--json-schema', agentFile]));
    const id = agent.conversationId!;

    const judged = await agent.chat('two', { responseSchema: Verdict });
    expect(await judged.structuredOutput<z.infer<typeof Verdict>>()).toEqual({ verdict: 'yes' });
    const turnPid = agent.pid!;
    expect(turnPid).not.toBe(firstPid);
    const argv = argvOf(turnPid);
    const turnFile = argv[argv.indexOf('--json-schema') + 1]!;
    expect(turnFile).not.toBe(agentFile);
    expect(turnFile.startsWith(join(agent.sessionDir!, 'turn-schemas'))).toBe(true);
    expect(argv).toEqual(expect.arrayContaining(['--conversation', id]));
    expect(statSync(turnFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(turnFile, 'utf8'))).toMatchObject({ required: ['verdict'] });

    // The next turn without its own schema runs in a process launched with the agent's again.
    expect(await (await agent.chat('three')).structuredOutput()).toEqual({ a: 3 });
    expect(agent.pid).not.toBe(turnPid);
    expect(argvOf(agent.pid!)).toEqual(
      expect.arrayContaining(['--json-schema', agentFile, '--conversation', id]),
    );
    expect(agent.conversationId).toBe(id);
  });

  it("a value that does not fit the turn's schema fails that turn only", async () => {
    const agent = await agentWith({
      turns: [
        { actions: [{ text: 'x' }], end: { structuredOutput: { verdict: 'maybe' } } },
        { actions: [{ text: 'x' }], end: { structuredOutput: { verdict: 'no' } } },
        { actions: [{ text: 'y' }] },
      ],
    });
    const result = await (await agent.chat('judge', { responseSchema: Verdict })).result();
    expect(result.status).toBe('error');
    expect(result.error).toBeInstanceOf(StructuredOutputError);
    const judgePid = agent.pid;
    // The same schema again: same file, so the process launched with it runs this turn too.
    expect(await (await agent.chat('again', { responseSchema: Verdict })).structuredOutput()).toEqual({
      verdict: 'no',
    });
    expect(agent.pid).toBe(judgePid);
    // No agent-level schema: the next turn runs without --json-schema and is plain text.
    const next = await (await agent.chat('plain')).result();
    expect(next.status).toBe('success');
    expect(argvOf(agent.pid!)).not.toContain('--json-schema');
  });
});

describe('system instructions', () => {
  it('become an always-on rule file in the session plugin, private', async () => {
    const agent = await agentWith(undefined, {
      systemInstructions: {
        identity: 'You are terse.',
        sections: [{ title: 'Style', content: 'No emojis.' }],
      },
    });
    await agent.start();
    const plugin = join(agent.sessionDir!, '.agents/plugins/agy-sdk');
    expect(JSON.parse(readFileSync(join(plugin, 'plugin.json'), 'utf8'))).toEqual({ name: 'agy-sdk' });
    const rule = readFileSync(join(plugin, 'rules/system-instructions.md'), 'utf8');
    expect(rule).toMatch(/^---\ntrigger: always_on\n/);
    expect(rule).toContain('You are terse.');
    expect(rule).toContain('## Style\n\nNo emojis.');
    expect(statSync(join(plugin, 'rules/system-instructions.md')).mode & 0o777).toBe(0o600);
    expect(statSync(agent.sessionDir!).mode & 0o777).toBe(0o700);
  });
});
