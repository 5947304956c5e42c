/**
 * The real-client harness, proved against our own fake Gemini endpoint: the real Gemini CLI 0.61.0 (headless,
 * settings workaround of docs/reference/gemini-clients.md#gemini-cli-headless-setup) completes a tool loop.
 * Expected CLI shapes come from the captures in ../shared/fixtures/gemini-cli-0.61/
 * (cli-stream-json-tools.txt: `tool_use`/`tool_result` with `tool_id` "{name}__{id}"; cli-sig-requests.json:
 * ids and the first call's signature replayed verbatim).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FakeGemini,
  type FakeGeminiRequest,
  functionResponses,
  replayedCalls,
  turns,
} from '../helpers/gateway/fake-gemini.js';
import {
  GEMINI_CLI_ENTRY,
  GEMINI_CLI_TEST_TIMEOUT_MS,
  retryLines,
  runGeminiCli,
} from '../helpers/gateway/gemini-cli.js';
import { waitGone } from '../helpers/sandbox.js';

const HAVE_CLI = existsSync(GEMINI_CLI_ENTRY);

/** The pids whose process group is `pgid` (Linux /proc; field 5 of stat). */
function groupMembers(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid) pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}
const describeCli = HAVE_CLI ? describe : describe.skip;

describeCli(
  HAVE_CLI
    ? 'Gemini CLI 0.61.0 against a fake Gemini endpoint'
    : `Gemini CLI (skipped: ${GEMINI_CLI_ENTRY} missing)`,
  // Each test launches Gemini CLI: a timeout that fits a loaded machine, not the suite's 60 s.
  { timeout: GEMINI_CLI_TEST_TIMEOUT_MS },
  () => {
    let fake: FakeGemini;
    let work: string;

    beforeAll(async () => {
      fake = await FakeGemini.start({ apiKey: 'cli-test-key' });
      work = mkdtempSync(join(tmpdir(), 'gemini-cli-ws-'));
      writeFileSync(join(work, 'marker-file.txt'), 'hello');
    });
    afterAll(async () => {
      await fake?.close();
      if (work !== undefined) rmSync(work, { recursive: true, force: true });
    });

    it('completes a list_directory tool loop: ids round-trip, no retries, usage non-zero', async () => {
      let answered: FakeGeminiRequest | undefined;
      fake.enqueue(
        turns.calls(
          [{ id: 'call_fake_1', name: 'list_directory', args: { dir_path: work } }],
          'Let me look.',
        ),
        (req) => {
          answered = req;
          const output = JSON.stringify(functionResponses(req.body)[0]?.response ?? {});
          return turns.text(
            'The directory ',
            `holds: ${output.includes('marker-file.txt') ? 'marker-file.txt' : 'nothing I know'}.`,
          );
        },
      );
      const run = await runGeminiCli({
        baseUrl: fake.url,
        apiKey: 'cli-test-key',
        prompt: 'list the files',
        model: 'gemini-2.5-flash',
        cwd: work,
      });
      expect(run.timedOut, run.stderr).toBe(false);
      expect(run.exitCode, run.stderr).toBe(0);
      const toolUse = run.events.find((e) => e.type === 'tool_use');
      expect(toolUse).toMatchObject({ tool_name: 'list_directory', tool_id: 'list_directory__call_fake_1' });
      expect(run.events.find((e) => e.type === 'tool_result')).toMatchObject({
        tool_id: 'list_directory__call_fake_1',
        status: 'success',
      });
      // The second model call carries the result under the call's own id, and the call replayed with that id.
      expect(answered).toBeDefined();
      const response = functionResponses(answered?.body)[0];
      expect(response).toMatchObject({ id: 'call_fake_1', name: 'list_directory' });
      expect(JSON.stringify(response)).toContain('marker-file.txt');
      expect(replayedCalls(answered?.body)[0]).toMatchObject({
        functionCall: { id: 'call_fake_1', name: 'list_directory' },
      });
      const text = run.events
        .filter((e) => e.type === 'message' && e.role === 'assistant')
        .map((e) => e.content)
        .join('');
      expect(text).toContain('holds: marker-file.txt.');
      const result = run.events.find((e) => e.type === 'result') as {
        status: string;
        stats: { total_tokens: number; tool_calls: number };
      };
      expect(result.status).toBe('success');
      expect(result.stats.total_tokens).toBeGreaterThan(0);
      expect(result.stats.tool_calls).toBe(1);
      expect(retryLines(run.stderr)).toEqual([]);
      // Exactly the two scripted model calls were streamed: nothing was re-sent.
      // With a concrete model no classifier or utility call is made: through-gateway.process.test.ts relies on it.
      expect(fake.requests.map((r) => r.action)).toEqual(['streamGenerateContent', 'streamGenerateContent']);
      expect(fake.requests.every((r) => r.headers['x-goog-api-key'] === 'cli-test-key')).toBe(true);
    });

    it('kills the whole process group when the endpoint hangs mid-stream', async () => {
      const hang = new Promise<void>(() => {});
      let served!: () => void;
      const partialSent = new Promise<void>((ok) => (served = ok));
      fake.enqueue({ chunks: [[{ text: 'partial' }], [{ text: ' never' }]], gate: hang, onGate: served });
      // Killed once the endpoint hangs, not at a fixed time: a CLI still booting on a loaded box would leave the
      // hanging reply queued for the next test.
      const run = await runGeminiCli({
        baseUrl: fake.url,
        apiKey: 'cli-test-key',
        prompt: 'hi',
        model: 'gemini-2.5-flash',
        timeoutMs: 200_000,
        killWhen: partialSent,
      });
      expect(fake.pending).toBe(0);
      expect(run.timedOut).toBe(false);
      expect(run.killedOnRequest).toBe(true);
      expect(run.signal).toBe('SIGKILL');
      // Nothing of the CLI's group is left alive (its relaunched child included); zombies are dead already.
      expect(await waitGone(groupMembers(run.pid as number))).toEqual([]);
    });

    it('reports an HTTP 400 from the endpoint as an error result, without retrying', async () => {
      const before = fake.requests.length;
      expect(fake.pending).toBe(0);
      fake.enqueue(turns.error(400, 'INVALID_ARGUMENT', 'bad request from the fake'));
      const run = await runGeminiCli({
        baseUrl: fake.url,
        apiKey: 'cli-test-key',
        prompt: 'hi',
        model: 'gemini-2.5-flash',
        // The CLI boots for tens of seconds on a loaded 2-core CI box: within the test's own 240 s.
        timeoutMs: 200_000,
      });
      expect(run.timedOut).toBe(false);
      expect(run.exitCode).not.toBe(0);
      const result = run.events.find((e) => e.type === 'result') as
        | { status: string; error?: { message: string } }
        | undefined;
      expect(result?.status).toBe('error');
      expect(result?.error?.message).toContain('bad request from the fake');
      expect(fake.requests.slice(before).filter((r) => r.action === 'streamGenerateContent')).toHaveLength(1);
    });
  },
);
