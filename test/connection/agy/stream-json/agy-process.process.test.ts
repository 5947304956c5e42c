// A throw while handling one line of agy's output must drop that line, not the host: readEvents guards the
// handler of each event of the process's stream. Runs a tiny fake agy (a shell script) through the real supervised spawn path.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgyProcess, readEvents } from '../../../../src/connection/agy/stream-json/agy-process.js';
import type { ExitInfo } from '../../../../src/connection/process/child-process.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('AgyProcess event handlers', () => {
  it('reports a throwing handler through onHandlerError and keeps reading both streams', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agy-sdk-fake-'));
    const fake = join(dir, 'agy');
    const step = (i: number, t: string) =>
      `{"event":"step_update","step_update":{"step_index":${i},"state":"ACTIVE","step_type":"agent_response","text_delta":"${t}"}}`;
    // Envelope shapes as in agy-real/joiomi-playbook-plugin-agy-1.3.1/success-pong.stdout.
    await writeFile(
      fake,
      [
        '#!/bin/sh',
        `echo '{"event":"init","conversation_id":"c1","init":{"cwd":"/","tools":[]}}'`,
        `echo '${step(1, 'before')}'`,
        "echo 'garbage'",
        "echo 'stderr one' >&2",
        "echo 'stderr two' >&2",
        `echo '${step(2, 'after')}'`,
        '',
      ].join('\n'),
    );
    await chmod(fake, 0o700);
    const handlerErrors: [string, string][] = [];
    const texts: string[] = [];
    const stderr: string[] = [];
    let exited!: (e: ExitInfo) => void;
    const exit = new Promise<ExitInfo>((r) => {
      exited = r;
    });
    const launch = new AgyProcess({
      binary: fake,
      args: [],
      env: process.env,
      cwd: dir,
      maxLineBytes: 1 << 20,
      startTimeoutMs: 20_000,
    });
    void readEvents(
      launch,
      (event) => {
        if (!launch.start.initialized) launch.start.see(event);
        switch (event.type) {
          case 'step':
            if (event.step.textDelta) texts.push(event.step.textDelta);
            return;
          case 'bad_line':
            throw new Error('bad-line handler bug');
          case 'stderr':
            stderr.push(event.line);
            if (event.line === 'stderr one') throw new Error('stderr handler bug');
            return;
          case 'exit':
            exited(event.exit);
            return;
          default:
        }
      },
      (error, stream) => handlerErrors.push([stream, (error as Error).message]),
    );
    expect((await launch.start.ready).conversationId).toBe('c1');
    expect((await exit).code).toBe(0);
    expect(texts).toEqual(['before', 'after']);
    expect(stderr).toEqual(['stderr one', 'stderr two']);
    expect(handlerErrors).toEqual([
      ['stdout', 'bad-line handler bug'],
      ['stderr', 'stderr handler bug'],
    ]);
  });
});
