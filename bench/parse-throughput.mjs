// Parse-and-normalize throughput on a ~100 MB agy transcript, against raw JSON.parse per line (same run).
import { LineSplitter } from '../dist/connection/agy/stream-json/framing.js';
import { parseLine } from '../dist/connection/agy/stream-json/parse-line.js';

const TARGET_BYTES = Number(process.env.BENCH_TRANSCRIPT_MB ?? 100) * 1024 * 1024;
const CHUNK = 64 * 1024;

/** A transcript shaped like docs/reference/stream-json.md: text deltas, tool steps, DONE usage, results. */
function buildTranscript() {
  const conv = '4eeb7dfd-1c1f-4b5e-9d7a-6a2c1b0e9f11';
  const usage = {
    input_tokens: 13823,
    output_tokens: 91,
    thinking_tokens: 90,
    cache_read_tokens: 0,
    total_tokens: 13914,
  };
  const lines = [];
  let bytes = 0;
  let step = 0;
  const push = (obj) => {
    const line = JSON.stringify(obj);
    lines.push(line);
    bytes += Buffer.byteLength(line) + 1;
  };
  push({
    event: 'init',
    conversation_id: conv,
    init: { cwd: '/wd', tools: ['run_command', 'view_file'], permission_mode: 'always-proceed' },
  });
  while (bytes < TARGET_BYTES) {
    push({
      event: 'step_update',
      step_update: { conversation_id: conv, step_index: step++, state: 'DONE', step_type: 'user_input' },
    });
    const tool = step++;
    const params = { CommandLine: 'ls -la src', Cwd: '/wd' };
    push({
      event: 'step_update',
      step_update: {
        conversation_id: conv,
        step_index: tool,
        state: 'ACTIVE',
        step_type: 'tool',
        tool_name: 'run_command',
        tool_info: { name: 'run_command', parameters: params },
      },
    });
    push({
      event: 'step_update',
      step_update: {
        conversation_id: conv,
        step_index: tool,
        state: 'DONE',
        step_type: 'tool',
        tool_name: 'run_command',
        tool_info: { name: 'run_command', parameters: params, output: 'a.ts\nb.ts\n'.repeat(20) },
      },
    });
    const text = step++;
    for (let i = 0; i < 20; i++) {
      push({
        event: 'step_update',
        step_update: {
          conversation_id: conv,
          step_index: text,
          state: 'ACTIVE',
          step_type: 'agent_response',
          text_delta: `token ${i} of the answer, with some “unicode” — é 🌍 `,
        },
      });
    }
    push({
      event: 'step_update',
      step_update: {
        conversation_id: conv,
        step_index: text,
        state: 'DONE',
        step_type: 'agent_response',
        text_delta: '\n',
        duration_seconds: 4.36,
        usage,
      },
    });
    push({
      event: 'result',
      result: {
        conversation_id: conv,
        status: 'SUCCESS',
        response: 'x',
        duration_seconds: 4.41,
        num_turns: 1,
        usage,
      },
    });
  }
  const buffer = Buffer.from(`${lines.join('\n')}\n`);
  return { lines, buffer };
}

function timeIt(fn, rounds = 3) {
  let best = Number.POSITIVE_INFINITY;
  let result;
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    result = fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return { ms: best, result };
}

export function run() {
  const { lines, buffer } = buildTranscript();
  const mb = buffer.length / (1024 * 1024);
  const baseline = timeIt(() => {
    let n = 0;
    for (const line of lines) if (JSON.parse(line)) n++;
    return n;
  });
  const ours = timeIt(() => {
    let events = 0;
    const splitter = new LineSplitter({
      maxLineBytes: 64 * 1024 * 1024,
      onLine: (line) => {
        if (parseLine(line).ok) events++;
      },
      onOverflow: () => {},
    });
    for (let off = 0; off < buffer.length; off += CHUNK) splitter.push(buffer.subarray(off, off + CHUNK));
    splitter.end();
    return events;
  });
  if (ours.result !== baseline.result)
    throw new Error(`event count mismatch: ${ours.result} vs ${baseline.result}`);
  return {
    name: 'parse-and-normalize (framing + parse + camelCase) vs raw JSON.parse per pre-split line',
    transcriptMB: Number(mb.toFixed(1)),
    lines: lines.length,
    baselineMBps: Number((mb / (baseline.ms / 1000)).toFixed(1)),
    oursMBps: Number((mb / (ours.ms / 1000)).toFixed(1)),
    ratio: Number((ours.ms / baseline.ms).toFixed(3)),
  };
}
