/**
 * The conformance check (`agy-sdk doctor --conformance`): a few short turns, each recorded as a cassette
 * (a "probe"), checked against the wire-fact catalogue (docs/reference/wire-facts.json). Each fact is `pass`,
 * `drift` (agy writes names this SDK does not know) or `fail` (a fact the SDK relies on broke: a missing or
 * renamed field, changed wording, a changed exit code), with details naming what was found. `skip`: no probe
 * for it ran.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Cassette, type CassetteRecord, stdoutObjects } from '../../cassette/format.js';
import { DriftTracker, isBadLine, parseEvent } from '../../connection/agy/reader.js';
import { CassetteError } from '../../errors.js';
import { distPath, packageRoot } from '../../internal/script-path.js';
import type { Logger } from '../../logger.js';
import { buildTimeline } from './timeline.js';

/** The probes: short turns, each exercising some facts. */
export const PROBES = ['text', 'builtin-tool', 'own-tool', 'denied', 'interrupt', 'resume', 'slash'] as const;
/** One probe's name. */
export type Probe = (typeof PROBES)[number];

/** One fact of the catalogue. */
export interface WireFact {
  /** A stable id, e.g. `steps-placeable`. */
  id: string;
  /** The probe it is checked on: a probe name, `stream` (every stream-json probe) or `*` (every probe). */
  probe: string;
  /** `break`: the SDK relies on it (a miss is `fail`); `drift`: a miss is `drift`. */
  severity: 'break' | 'drift';
  /** What the fact says. */
  what: string;
  /** Where it comes from (`docs/reference/<file>.md#<anchor>`). */
  source: string;
  /** Wording the SDK matches (a regular expression), for facts about text. */
  pattern?: string | undefined;
  /** Expected exit codes by probe, for `exit-codes`. */
  expect?: Record<string, number> | undefined;
}

/** The machine-readable catalogue. */
export interface WireFactCatalogue {
  /** `agy-sdk-wire-facts`. */
  format: string;
  /** Its version. */
  version: number;
  /** The names this SDK knows (events, step types, states, statuses, fields by object). */
  known: Record<string, string[]>;
  /** The facts. */
  facts: WireFact[];
}

/** One fact's verdict. */
export interface FactResult {
  /** The fact's id. */
  id: string;
  /** `pass`, `drift`, `fail` or `skip`. */
  status: 'pass' | 'drift' | 'fail' | 'skip';
  /** What was found (each drift or break by name, with the probe it was seen in). */
  details: string[];
  /** The fact's source. */
  source: string;
  /** What the fact says. */
  what: string;
}

/** Loads the catalogue: the built copy (`dist/testing/cassette/`), else `docs/reference/` (a checkout, the package). */
export function loadWireFacts(file?: string): WireFactCatalogue {
  const candidates = file
    ? [file]
    : [distPath('testing/cassette/wire-facts.json'), join(packageRoot(), 'docs/reference/wire-facts.json')];
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new CassetteError(candidates[0]!, 0, 'catalogue', 'the wire-fact catalogue is missing');
  return JSON.parse(readFileSync(found, 'utf8')) as WireFactCatalogue;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const stepsOf = (c: Cassette) =>
  stdoutObjects(c).flatMap((v) => (isObj(v.step_update) ? [v.step_update] : []));
const resultsOf = (c: Cassette) =>
  stdoutObjects(c).flatMap((v) =>
    v.event === 'result' && isObj(v.result)
      ? [v.result]
      : v.event === undefined && typeof v.status === 'string'
        ? [v]
        : [],
  );
const lastExit = (c: Cassette) =>
  c.records.filter((r) => r.type === 'exit').at(-1) as Extract<CassetteRecord, { type: 'exit' }> | undefined;

type Check = (fact: WireFact, c: Cassette, probe: Probe) => string[];

/** Each fact's check on one probe's cassette: the problems found (empty: the fact holds). */
const CHECKS: Record<string, Check> = {
  'known-names': (_f, c) => {
    const seen: string[] = [];
    const logger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
    const drift = new DriftTracker(logger, () => c.header.agy.version);
    for (const r of c.records) {
      if (r.type !== 'stdout') continue;
      const parsed = parseEvent(r.line);
      if (isBadLine(parsed)) {
        const v = parsed.value as Obj | undefined;
        if (parsed.reason === 'unknown_event') drift.event(String(v?.event ?? '(none)'));
        else if (isObj(v?.step_update)) drift.step(v.step_update);
        else if (parsed.reason === 'not_json')
          seen.push(`a stdout line is not JSON: ${parsed.line.slice(0, 80)}`);
      } else if (parsed.type === 'step') drift.step(parsed.step.raw as Obj);
      else if (parsed.type === 'result') drift.result(parsed.result as Obj);
    }
    return [...seen, ...drift.entries.map((d) => `${d.kind.replace('_', ' ')} ${d.name} (×${d.count})`)];
  },
  'init-first': (_f, c) => {
    const problems: string[] = [];
    let expectInit = false;
    for (const r of c.records) {
      if (r.type === 'spawn') expectInit = true;
      else if (r.type === 'stdout' && expectInit) {
        expectInit = false;
        if (!r.line.startsWith('{"event":"init"'))
          problems.push(`first line is not init: ${r.line.slice(0, 120)}`);
      }
    }
    return problems;
  },
  'steps-placeable': (_f, c) => {
    const problems = new Set<string>();
    for (const s of stepsOf(c)) {
      const extra = Object.keys(s).filter(
        (k) => !['step_index', 'state', 'step_type'].includes(k) && /step|state|type|index/i.test(k),
      );
      if (!(Number.isSafeInteger(s.step_index) && (s.step_index as number) >= 0))
        problems.add(
          `step_index ${s.step_index === undefined ? 'missing' : `is ${JSON.stringify(s.step_index)}`}${extra.length ? ` (found ${extra.join(', ')})` : ''}`,
        );
      if (s.state !== undefined && typeof s.state !== 'string') problems.add(`state is ${typeof s.state}`);
      if (typeof s.step_type !== 'string')
        problems.add(`step_type ${s.step_type === undefined ? 'missing' : `is ${typeof s.step_type}`}`);
    }
    return [...problems];
  },
  'one-result-per-turn': (_f, c, probe) => {
    const turns = c.records.filter((r) => r.type === 'stdin').length;
    const results = resultsOf(c).length;
    if (probe === 'interrupt' ? results <= turns : results === turns) return [];
    return [`${turns} user line(s), ${results} result(s)`];
  },
  'text-reply': (_f, c) => {
    const turn = buildTimeline(c).turns.at(-1);
    const result = resultsOf(c).at(-1);
    if (!turn || !result) return ['no turn and result'];
    const problems: string[] = [];
    if (result.status !== 'SUCCESS') problems.push(`status ${JSON.stringify(result.status)}`);
    const text = turn.steps
      .filter((s) => s.type === 'agent_response')
      .map((s) => s.text)
      .join('');
    if (typeof result.response === 'string' && text !== result.response)
      problems.push(
        `response ${JSON.stringify(result.response)} is not the streamed text ${JSON.stringify(text)}`,
      );
    return problems;
  },
  'tool-step-shape': (_f, c) => {
    const tools = stepsOf(c).filter((s) => s.step_type === 'tool');
    if (tools.length === 0) return ['no tool step'];
    const problems = new Set<string>();
    for (const s of tools) {
      const info = isObj(s.tool_info) ? s.tool_info : undefined;
      if (!info) problems.add('tool_info missing');
      else {
        if (typeof info.name !== 'string') problems.add('tool_info.name missing');
        if (s.tool_name !== undefined && s.tool_name !== info.name)
          problems.add(`tool_name ${String(s.tool_name)} ≠ tool_info.name ${String(info.name)}`);
        if (info.parameters !== undefined && !isObj(info.parameters))
          problems.add('tool_info.parameters is not an object');
      }
    }
    return [...problems];
  },
  'mcp-call-shape': (_f, c) => {
    const problems: string[] = [];
    const calls = stepsOf(c).filter((s) => isObj(s.tool_info) && s.tool_info.name === 'call_mcp_tool');
    if (calls.length === 0) problems.push('no call_mcp_tool step');
    for (const s of calls) {
      const p = (s.tool_info as Obj).parameters;
      if (!isObj(p) || typeof p.ServerName !== 'string' || typeof p.ToolName !== 'string')
        problems.push(
          `call_mcp_tool parameters are ${JSON.stringify(p)}, not {ServerName, ToolName, Arguments}`,
        );
    }
    if (!c.records.some((r) => r.type === 'mcp' && JSON.stringify(r.request).includes('"tools/call"')))
      problems.push('no tools/call reached the listener');
    return problems;
  },
  'denied-actions': (_f, c) => {
    const results = resultsOf(c);
    const listed = results.some(
      (r) =>
        Array.isArray(r.denied_actions) &&
        r.denied_actions.some((d) => isObj(d) && d.action === 'run_command'),
    );
    const turn = buildTimeline(c).turns.at(-1);
    const denied = turn?.steps.some((s) => s.tool?.name === 'run_command' && s.denial) ?? false;
    return listed || denied ? [] : ['no denied_actions entry and no denied run_command step'];
  },
  'interrupt-wording': (f, c) => {
    const at = c.records.findIndex((r) => r.type === 'signal');
    const after = at < 0 ? c.records : c.records.slice(at);
    const result = resultsOf({ ...c, records: after }).at(0);
    if (!result) return ['no result after the interrupt'];
    if (result.status === 'INTERRUPTED') return [];
    const error = typeof result.error === 'string' ? result.error : JSON.stringify(result.error);
    const pattern = new RegExp(f.pattern ?? '^interrupted$', 'i');
    return result.status === 'ERROR' && pattern.test(error ?? '')
      ? []
      : [`status ${JSON.stringify(result.status)}, error ${JSON.stringify(error)} (expected ${pattern})`];
  },
  'resume-notice': (_f, c) =>
    stepsOf(c).some((s) => s.step_type === 'system_message') ? [] : ['no system_message step'],
  'slash-command-payload': (_f, c) => {
    const values = stdoutObjects(c);
    const ok = values.some(
      (v) =>
        (v.event === 'command_result' && isObj(v.command) && typeof v.command.name === 'string') ||
        (isObj(v.command) && typeof (v.command as Obj).name === 'string'),
    );
    return ok ? [] : ['no command payload under `command` with a name'];
  },
  'exit-codes': (f, c, probe) => {
    const expected = f.expect?.[probe];
    if (expected === undefined) return [];
    const exit = lastExit(c);
    if (!exit) return [];
    return exit.code === expected ? [] : [`exit ${exit.signal ?? exit.code}, expected ${expected}`];
  },
};

function applies(fact: WireFact, probe: Probe): boolean {
  return fact.probe === '*' || fact.probe === probe || (fact.probe === 'stream' && probe !== 'slash');
}

/** Checks every fact on the probes' cassettes. */
export function checkConformance(
  runs: Partial<Record<Probe, Cassette>>,
  catalogue: WireFactCatalogue = loadWireFacts(),
): FactResult[] {
  return catalogue.facts.map((fact) => {
    const check = CHECKS[fact.id];
    const base = { id: fact.id, source: fact.source, what: fact.what };
    if (!check)
      return { ...base, status: 'fail' as const, details: [`this SDK has no check for fact ${fact.id}`] };
    const details: string[] = [];
    let ran = false;
    for (const probe of PROBES) {
      const cassette = runs[probe];
      if (!cassette || !applies(fact, probe)) continue;
      ran = true;
      for (const d of check(fact, cassette, probe)) details.push(`${probe}: ${d}`);
    }
    if (!ran) return { ...base, status: 'skip' as const, details: ['no probe for it ran'] };
    const status = details.length === 0 ? 'pass' : fact.severity === 'drift' ? 'drift' : 'fail';
    return { ...base, status, details };
  });
}
