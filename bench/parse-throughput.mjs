// Parse-and-normalize throughput on agy transcripts of 1, 10 and 100 MB (64 KiB chunks, as a pipe delivers
// them), against two baselines from the same run:
// - fair: the same Buffer chunks → split on 0x0A → decode each line → JSON.parse (what any correct reader of
//   agy's stdout must do at least);
// - raw: JSON.parse over lines already split and decoded (the old figure; it skips framing and decoding).
// Ours: LineSplitter → EventReader (framing, JSON.parse, depth bound, event dispatch, wire → Step; a text delta
// that differs from the one before only inside its string is read from that one's template, without a parse),
// as the agy connection reads stdout. Also ours with every line parsed in full (LineSplitter → parseEvent): the
// reader's cost where no line repeats another's shape.
// Each figure is the median of rounds (sides interleaved, a full GC before each) with min–max, as throughput
// (MB/s of wall time) and CPU time; ratios are ours ÷ baseline of time, so lower is better and ≤ 1.053 is
// ≥ 0.95× the throughput. The CPU ratio counts V8's helper threads too: the forced GC frees every wire object,
// their hidden classes die with them, and code that reads their properties (ours, not fair's) is deoptimized
// and optimized again on the compiler thread at the next measurement (`--trace-deopt`: "weak objects"). Without
// the forced GC the CPU ratio follows the time ratio.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { EventReader } from '../dist/connection/agy/stream-json/event-reader.js';
import { parseEvent } from '../dist/connection/agy/stream-json/parse-line.js';
import { LineSplitter } from '../dist/connection/process/line-splitter.js';
import { cpuMs, rounds } from './stats.mjs';

const SIZES_MB = (process.env.BENCH_TRANSCRIPT_MB ?? '1,10,100').split(',').map(Number);
const CHUNK = 64 * 1024;

// A full collection before every measurement, so no side pays for the garbage the side before it left (the
// sides alternate, and which one a pending major GC fell on decided several percent of a ratio).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

/** A transcript shaped like docs/reference/stream-json.md: text deltas, tool steps, DONE usage, results. */
function buildTranscript(targetBytes) {
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
  while (bytes < targetBytes) {
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
  return { lines, buffer: Buffer.from(`${lines.join('\n')}\n`) };
}

function* chunks(buffer) {
  for (let off = 0; off < buffer.length; off += CHUNK) yield buffer.subarray(off, off + CHUNK);
}

/** Split on 0x0A, decode, JSON.parse: the least any correct reader does. */
function fair(buffer) {
  let n = 0;
  let pending;
  for (const chunk of chunks(buffer)) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) {
        if (start < chunk.length)
          pending = pending ? Buffer.concat([pending, chunk.subarray(start)]) : chunk.subarray(start);
        break;
      }
      let line;
      if (pending) {
        line = Buffer.concat([pending, chunk.subarray(start, nl)]).toString('utf8');
        pending = undefined;
      } else line = chunk.toString('utf8', start, nl);
      if (JSON.parse(line)) n++;
      start = nl + 1;
    }
  }
  return n;
}

function raw(lines) {
  let n = 0;
  for (const line of lines) if (JSON.parse(line)) n++;
  return n;
}

function ours(buffer) {
  let events = 0;
  const reader = new EventReader();
  const splitter = new LineSplitter({
    maxLineBytes: 64 * 1024 * 1024,
    onLine: (line) => {
      if (reader.read(line).type !== undefined) events++;
    },
    onOverflow: () => {},
  });
  for (const chunk of chunks(buffer)) splitter.push(chunk);
  splitter.end();
  return events;
}

/** Ours without templates: every line parsed in full. */
function oursFull(buffer) {
  let events = 0;
  const splitter = new LineSplitter({
    maxLineBytes: 64 * 1024 * 1024,
    onLine: (line) => {
      if (parseEvent(line).type !== undefined) events++;
    },
    onOverflow: () => {},
  });
  for (const chunk of chunks(buffer)) splitter.push(chunk);
  splitter.end();
  return events;
}

function measure(fn) {
  gc();
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const result = fn();
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, cpu: cpuMs(cpu0), result };
}

export function run() {
  const out = {
    name: 'parse + normalize: LineSplitter → EventReader (and → parseEvent, every line parsed) vs fair (chunks → split → decode → JSON.parse) and raw (JSON.parse of pre-split lines)',
    sizes: {},
  };
  for (const sizeMb of SIZES_MB) {
    const { lines, buffer } = buildTranscript(sizeMb * 1024 * 1024);
    const mb = buffer.length / (1024 * 1024);
    const n = sizeMb >= 100 ? 3 : 7;
    // Small transcripts are parsed several times per measurement, so one takes ~100 ms: a few-millisecond run
    // is all timer and scheduler noise on a shared machine. Throughput still counts every byte parsed.
    const reps = Math.max(1, Math.round(20 / sizeMb));
    const repeat = (fn) => () => {
      let n = 0;
      for (let i = 0; i < reps; i++) n = fn();
      return n;
    };
    const sides = {
      fair: repeat(() => fair(buffer)),
      raw: repeat(() => raw(lines)),
      ours: repeat(() => ours(buffer)),
      oursFull: repeat(() => oursFull(buffer)),
    };
    const rows = { fair: [], raw: [], ours: [], oursFull: [] };
    // Warm-up (JIT) on every side.
    for (const side of Object.values(sides)) measure(side);
    for (let r = 0; r < n; r++) {
      const order = r % 2 ? ['oursFull', 'ours', 'raw', 'fair'] : ['fair', 'raw', 'ours', 'oursFull'];
      for (const side of order) rows[side].push(measure(sides[side]));
    }
    for (const row of [...rows.ours, ...rows.oursFull])
      if (row.result !== rows.fair[0].result) throw new Error(`event count mismatch at ${sizeMb} MB`);
    const mbps = (side) =>
      rounds(
        rows[side].map((x) => (reps * mb) / (x.ms / 1000)),
        1,
      );
    const ratio = (base, key, side = 'ours') =>
      rounds(
        rows[side].map((o, i) => o[key] / rows[base][i][key]),
        3,
      );
    out.sizes[`${sizeMb}MB`] = {
      lines: lines.length,
      fairMBps: mbps('fair'),
      rawMBps: mbps('raw'),
      oursMBps: mbps('ours'),
      oursNsPerByte: rounds(
        rows.ours.map((x) => (x.ms * 1e6) / (reps * buffer.length)),
        2,
      ),
      ratioFairTime: ratio('fair', 'ms'),
      ratioFairCpu: ratio('fair', 'cpu'),
      ratioRawTime: ratio('raw', 'ms'),
      oursEveryLineParsedMBps: mbps('oursFull'),
      ratioFairTimeEveryLineParsed: ratio('fair', 'ms', 'oursFull'),
    };
  }
  // Flattened for the summary line.
  for (const [size, s] of Object.entries(out.sizes)) {
    out[`ratioFair${size}`] = s.ratioFairTime.median;
    out[`ratioFairCpu${size}`] = s.ratioFairCpu.median;
    out[`ratioFairEveryLineParsed${size}`] = s.ratioFairTimeEveryLineParsed.median;
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(run(), null, 1));
