// The supervisor's control protocol (process/control-protocol.ts), driven directly on fd 3 through the built
// script: started with argv it runs the command at once and, after it exits, scans by itself and exits (the
// contract other hosts rely on); started bare it waits for its `spawn` command, then after agy's exit waits for
// the host's sweep: `kill` lists are carried out and acknowledged, `swept` lets it exit, and a host that goes
// away instead makes it finish alone.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  controlLine,
  type HostCommand,
  lineReader,
} from '../../src/connection/agy/process/control-protocol.js';
import { SUPERVISOR } from '../../src/connection/agy/process/spare.js';
import { alive, waitGone } from '../helpers/sandbox.js';

const linux = process.platform === 'linux';

/** A supervisor with its control pipe, every report it sent, and a way to wait for one. */
function supervisor(argv: string[] = []) {
  const child = spawn(process.execPath, [SUPERVISOR, ...argv], { stdio: ['pipe', 'pipe', 'pipe', 'pipe'] });
  onTestFinished(() => {
    child.kill('SIGKILL');
  });
  const control = child.stdio[3] as Socket;
  const reports: Record<string, unknown>[] = [];
  const waiters: Array<() => void> = [];
  control.setEncoding('utf8');
  control.on(
    'data',
    lineReader((line) => {
      reports.push(JSON.parse(line));
      for (const w of waiters.splice(0)) w();
    }),
  );
  const report = async (type: string): Promise<Record<string, unknown>> => {
    for (;;) {
      const found = reports.find((r) => r.type === type);
      if (found) return found;
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  const send = (cmd: HostCommand) => control.write(controlLine(cmd));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  return { child, control, reports, report, send, exited };
}

const sleeper = (child: ChildProcess) =>
  new Promise<number>((resolve) => child.stdout!.once('data', (c) => resolve(Number(String(c)))));

describe.skipIf(!linux)('the supervisor control protocol', () => {
  it('argv mode: runs at once, and after the exit scans by itself and exits without the host', async () => {
    const sup = supervisor(['sh', '-c', 'exit 3']);
    expect((await sup.report('spawned')).pid).toBeGreaterThan(0);
    expect(await sup.report('exit')).toMatchObject({ code: 3 });
    // Nobody sends `swept`: it must not wait for one (well below the 10 s sweep wait).
    const t = Date.now();
    expect(await sup.exited).toBe(0);
    expect(Date.now() - t).toBeLessThan(8000);
  });

  it('bare: waits for `spawn`; after the exit, carries out `kill`, acknowledges it, and exits on `swept`', async () => {
    const sup = supervisor();
    await sup.report('ready');
    // A setsid sleeper outlives the command; the host's sweep finds it by the marker and sends it here.
    sup.send({
      cmd: 'spawn',
      binary: 'sh',
      args: ['-c', 'setsid sleep 1000 & echo $!'],
      env: { PATH: process.env.PATH },
      cwd: process.cwd(),
    });
    const pid = await sleeper(sup.child);
    onTestFinished(() => {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    });
    await sup.report('exit');
    expect(alive(pid)).toBe(true);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const start = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
    // A wrong start time is a reused pid: left alone.
    sup.send({ cmd: 'kill', found: [[pid, `${start}9`]] });
    await sup.report('killed');
    expect(alive(pid)).toBe(true);
    sup.reports.length = 0;
    sup.send({ cmd: 'kill', found: [[pid, start]] });
    await sup.report('killed');
    expect(await waitGone([pid], 10_000)).toEqual([]);
    sup.send({ cmd: 'swept' });
    expect(await sup.exited).toBe(0);
  });

  it('bare: if the host goes away during the sweep, it scans by itself and kills what carries the marker', async () => {
    const sup = supervisor();
    sup.send({
      cmd: 'spawn',
      binary: 'sh',
      args: ['-c', 'setsid sleep 1000 & echo $!'],
      env: { PATH: process.env.PATH },
      cwd: process.cwd(),
    });
    const pid = await sleeper(sup.child);
    onTestFinished(() => {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    });
    await sup.report('exit');
    expect(alive(pid)).toBe(true);
    sup.control.destroy();
    expect(await waitGone([pid], 10_000)).toEqual([]);
    expect(await sup.exited).toBe(0);
  });
});
