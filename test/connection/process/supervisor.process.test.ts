// The host supervisor's control protocol (process/control-protocol.ts), driven directly on fd 3 through the built
// script, with processes this test starts itself as the "sessions" (own process group, session marker), the
// way AgentProcess does: `watch` then `pid`, `adopt`, `kill-tree` (answered `killed`), `forget`; when the control
// pipe closes (the host is gone) or on SIGTERM it kills what every held session left (group, marker, adopted;
// SIGTERM, then SIGKILL after the grace) with one /proc pass for all, and exits; holding nothing it exits at once.
// SIGINT is the host's to handle. Design: docs/architecture.md "No orphans".
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  controlLine,
  type HostCommand,
  lineReader,
} from '../../../src/connection/process/control-protocol.js';
import { SUPERVISOR } from '../../../src/connection/process/host-supervisor.js';
import { MARK_VAR } from '../../../src/platform/index.js';
import { spawnMarkedSession } from '../../fixtures/marked-session.mjs';
import { killAll } from '../../helpers/fake-agy.js';
import { alive, waitGone } from '../../helpers/sandbox.js';

const linux = process.platform === 'linux';

/** A supervisor with its control pipe, every report it sent, and a way to wait for one. */
function supervisor() {
  const child = spawn(process.execPath, [SUPERVISOR], { stdio: ['ignore', 'ignore', 'inherit', 'pipe'] });
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

/**
 * A "session": `sh` in its own group with a marker, starting a setsid sleeper (leaves the group, keeps the
 * marker), an in-group sleeper ignoring SIGTERM, and printing both pids; registered as `id`.
 */
async function session(sup: ReturnType<typeof supervisor>, id: number, graceMs = 500) {
  const mark = randomBytes(16).toString('hex');
  sup.send({ cmd: 'watch', id, mark, graceMs });
  const { sh, pids } = spawnMarkedSession(MARK_VAR, mark);
  sup.send({ cmd: 'pid', id, pid: sh.pid! });
  const all = await pids;
  onTestFinished(() => killAll(all.filter(alive)));
  return { mark, sh, all };
}

const pidsFrom = (child: ChildProcess) =>
  new Promise<number[]>((resolve) =>
    child.stdout!.once('data', (c) => resolve(String(c).trim().split(' ').map(Number))),
  );

function startOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

/** A process outside every group and without the marker: only `adopt` ties it to a session. */
async function stray(): Promise<number> {
  const child = spawn('sleep', ['1000'], {
    stdio: 'ignore',
    detached: true,
    env: { PATH: process.env.PATH },
  });
  await new Promise((r) => child.once('spawn', r));
  onTestFinished(() => killAll([child.pid!].filter(alive)));
  return child.pid!;
}

describe.skipIf(!linux)('the host supervisor control protocol', () => {
  it('reports ready; holding nothing, it exits at once when the pipe closes', async () => {
    const sup = supervisor();
    expect((await sup.report('ready')).pid).toBe(sup.child.pid);
    sup.control.end();
    expect(await sup.exited).toBe(0);
  });

  it('the host gone: every held session’s group, setsid child (marker) and adopted pid die, SIGTERM-ignorers too', async () => {
    const sup = supervisor();
    const a = await session(sup, 1);
    const b = await session(sup, 2);
    const adopted = await stray();
    const other = await stray();
    // A wrong start time is a reused pid: left alone.
    sup.send({
      cmd: 'adopt',
      id: 1,
      found: [
        [adopted, startOf(adopted)],
        [other, `${startOf(other)}9`],
      ],
    });
    await sup.report('ready');
    expect([...a.all, ...b.all, adopted].every(alive)).toBe(true);
    sup.control.destroy();
    expect(await waitGone([...a.all, ...b.all, adopted], 15_000)).toEqual([]);
    expect(await sup.exited).toBe(0);
    expect(alive(other)).toBe(true);
  });

  it('a session whose pid never came (the host died right after `watch`) is still found by its marker', async () => {
    const sup = supervisor();
    const mark = randomBytes(16).toString('hex');
    sup.send({ cmd: 'watch', id: 7, mark, graceMs: 0 });
    const sh = spawn('sh', ['-c', 'setsid sleep 1000 & echo $!; wait'], {
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: true,
      env: { PATH: process.env.PATH, [MARK_VAR]: mark },
    });
    const [setsid] = await pidsFrom(sh);
    onTestFinished(() => killAll([sh.pid!, setsid!].filter(alive)));
    await sup.report('ready');
    sup.control.destroy();
    expect(await waitGone([sh.pid!, setsid!], 15_000)).toEqual([]);
    expect(await sup.exited).toBe(0);
  });

  it('`kill-tree` kills that session now and answers `killed`; a forgotten session is left alone; SIGINT is ignored', async () => {
    const sup = supervisor();
    const a = await session(sup, 1);
    const b = await session(sup, 2);
    const c = await session(sup, 3);
    sup.send({ cmd: 'kill-tree', id: 1 });
    expect(await sup.report('killed')).toMatchObject({ id: 1 });
    sup.reports.length = 0;
    expect(await waitGone(a.all, 15_000)).toEqual([]);
    expect([...b.all, ...c.all].every(alive)).toBe(true);
    // The host swept session 3 itself and forgot it: the supervisor no longer touches it.
    sup.send({ cmd: 'forget', id: 3 });
    const d = await session(sup, 4);
    sup.child.kill('SIGINT');
    // Answered after the SIGINT: it is still there and serving.
    sup.send({ cmd: 'kill-tree', id: 4 });
    expect(await sup.report('killed')).toMatchObject({ id: 4 });
    expect(await waitGone(d.all, 15_000)).toEqual([]);
    expect(alive(sup.child.pid!)).toBe(true);
    // SIGTERM: like the host going away.
    sup.child.kill('SIGTERM');
    expect(await waitGone(b.all, 15_000)).toEqual([]);
    expect(await sup.exited).toBe(0);
    expect(c.all.every(alive)).toBe(true);
  });

  it('a `pid` carries agy’s start time as the host read it: a pid whose process is not that one any more is left alone', async () => {
    const sup = supervisor();
    // Two processes in groups of their own and without a marker: only their `pid` lines tie them to a session.
    const same = await stray();
    const reused = await stray();
    sup.send({ cmd: 'watch', id: 1, mark: randomBytes(16).toString('hex'), graceMs: 0 });
    sup.send({ cmd: 'pid', id: 1, pid: same, start: startOf(same) });
    sup.send({ cmd: 'watch', id: 2, mark: randomBytes(16).toString('hex'), graceMs: 0 });
    // The start the host read belongs to an earlier process that had this pid.
    sup.send({ cmd: 'pid', id: 2, pid: reused, start: `${startOf(reused)}9` });
    await sup.report('ready');
    sup.control.destroy();
    expect(await waitGone([same], 15_000)).toEqual([]);
    expect(await sup.exited).toBe(0);
    expect(alive(reused)).toBe(true);
  });

  it('reads what the host wrote before it died even when it boots after that (its report to the gone host fails)', async () => {
    // The waiter's case: the control lines wait in the pipe, the host is gone, then the supervisor boots.
    const mark = randomBytes(16).toString('hex');
    const gate = spawn('sh', ['-c', 'read -r _ <&4; exec "$0" "$@"', process.execPath, SUPERVISOR], {
      stdio: ['ignore', 'ignore', 'inherit', 'pipe', 'pipe'],
    });
    onTestFinished(() => {
      gate.kill('SIGKILL');
    });
    const exited = new Promise<number | null>((r) => gate.on('exit', (code) => r(code)));
    const control = gate.stdio[3] as Socket;
    control.write(controlLine({ cmd: 'watch', id: 1, mark, graceMs: 0 }));
    const sh = spawn('sh', ['-c', 'setsid sleep 1000 & echo $!; wait'], {
      stdio: ['ignore', 'pipe', 'ignore'],
      detached: true,
      env: { PATH: process.env.PATH, [MARK_VAR]: mark },
    });
    control.write(controlLine({ cmd: 'pid', id: 1, pid: sh.pid!, start: startOf(sh.pid!) }));
    const [setsid] = await pidsFrom(sh);
    onTestFinished(() => killAll([sh.pid!, setsid!].filter(alive)));
    // The host "dies": both its ends close, the shell execs the supervisor, which reads the lines, then EOF.
    control.destroy();
    (gate.stdio[4] as Socket).destroy();
    expect(await waitGone([sh.pid!, setsid!], 15_000)).toEqual([]);
    expect(await exited).toBe(0);
  });
});
