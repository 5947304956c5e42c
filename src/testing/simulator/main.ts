#!/usr/bin/env node
/**
 * agy-sim: an offline stand-in for Google's `agy` CLI in stream-json mode, faithful to the wire shapes, flags,
 * exit codes and quirks in docs/reference/stream-json.md#launch-flags, docs/reference/stream-json.md#exit-codes. A scenario file named by
 * `AGY_SIM_SCENARIO` scripts what each turn does; without one a small echo script runs. Like agy, it loads
 * plugins, rules, custom agents, hooks and MCP servers from `--add-dir` workspaces and `$HOME` (README
 * "Plugins, hooks and MCP"): hooks run around the turn's actions, MCP servers connect right after `init`.
 *
 * Exit codes: 0 success (also soft denials, print timeout, stdin EOF), 1 pre-turn failure or bad input,
 * 2 flag errors and unsupported input, 3 quota, 130 SIGINT while idle, 143 SIGTERM.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { checkProfileFlags, FlagError, HELP_TEXT, parseArgs, type SimArgs } from './args.js';
import { runSlashCommand, SlashCommandError } from './commands.js';
import { Conversation } from './conversation.js';
import { Emitter } from './emitter.js';
import { initEnvelope, preTurnFailure } from './envelopes.js';
import { sessionStartHooks } from './hook-events.js';
import { JsonSchemaError, loadJsonSchema } from './json-schema.js';
import { McpConfigError } from './mcp-config.js';
import { ModelEndpointSession } from './model-endpoint.js';
import { modelEndpointConfig } from './model-endpoint-config.js';
import { modelSelectionError, modelsCommand } from './models.js';
import { type AgyProfile, DEFAULT_AGY_VERSION, olderThan, profileFor } from './profile.js';
import { SimRuntime } from './runtime.js';
import type { Scenario, ScenarioStartup } from './scenario.js';
import { loadScenario, ScenarioError } from './scenario-file.js';
import { Session } from './session.js';
import { fresh, isValidConversationId, StateError, StateStore, stateDirFromEnv } from './state.js';
import { TurnRunner } from './turn-runner.js';
import { usableWorkspaces } from './workspace.js';

const emitter = new Emitter();
let conversation: Conversation | undefined;
let runner: TurnRunner | undefined;
let runtime: SimRuntime | undefined;

/**
 * Saves state, flushes stdout/stderr, closes the MCP clients (bounded; stdio servers still running are then
 * killed), then exits: nothing written is lost.
 */
async function exit(code: number): Promise<never> {
  conversation?.save();
  await emitter.flush().catch(() => {});
  await runtime?.close().catch(() => {});
  await emitter.flush().catch(() => {});
  process.exit(code);
}

/** Reports a failure that is not part of agy's behaviour (a simulator bug) and exits 1. */
function crash(err: unknown): void {
  process.stderr.write(`error: agy simulator internal error: ${(err as Error)?.stack ?? String(err)}\n`);
  process.exit(1);
}

async function fail(code: number, message: string): Promise<never> {
  await emitter.stderr(`error: ${message}`);
  return exit(code);
}

/** Runs `fn`; an error of class `type` ends the process with `code` and its message, any other is rethrown. */
async function orFail<T>(code: number, type: new (...args: never[]) => Error, fn: () => T): Promise<T> {
  try {
    return fn();
  } catch (err) {
    if (err instanceof type) return fail(code, err.message);
    throw err;
  }
}

async function main(argv: readonly string[]): Promise<void> {
  // The reader went away: a Go program would die of SIGPIPE; 141 is how a shell reports that.
  process.stdout.on('error', () => process.exit(141));
  process.stderr.on('error', () => {});
  // Cassette mode plays a recorded session instead (../cassette/replay-agy.ts).
  const cassette = argv.some((a) => a.startsWith('--cassette')) || process.env.AGY_SIM_CASSETTE;
  if (cassette) {
    const { cassetteArgument, replayCassette } = await import('../cassette/replay-agy.js');
    const { file, rest } = cassetteArgument(argv);
    await replayCassette(file ?? process.env.AGY_SIM_CASSETTE!, rest);
  }

  // `agy models` (docs/reference/process.md#sign-in-probe): the one subcommand; its flags parse like the rest.
  const models = argv[0] === 'models';
  const args = await orFail(2, FlagError, () => parseArgs(models ? argv.slice(1) : argv));
  const scenario = await orFail(1, ScenarioError, () => loadScenario(process.env.AGY_SIM_SCENARIO));
  if (args.help) {
    await emitter.raw(HELP_TEXT);
    return exit(0);
  }
  const version = scenario?.version ?? (process.env.AGY_SIM_VERSION || DEFAULT_AGY_VERSION);
  const profile = profileFor(version);
  await orFail(2, FlagError, () => checkProfileFlags(args, profile.flags));
  if (args.version) {
    await emitter.raw(`agy version ${version}\n`);
    return exit(0);
  }
  if (models) {
    // Signed out exactly when the scenario's startup says so (`startup.authFail`).
    const answer = modelsCommand(!scenario?.startup?.authFail);
    if (answer.stdout !== '') await emitter.raw(answer.stdout);
    if (answer.stderr !== undefined) await emitter.stderr(answer.stderr);
    return exit(answer.exitCode);
  }
  const printMode = await checkMode(args);
  const schemaFile = args.jsonSchema;
  const jsonSchema =
    schemaFile === undefined ? undefined : await orFail(1, JsonSchemaError, () => loadJsonSchema(schemaFile));
  if (args.conversation !== undefined && !isValidConversationId(args.conversation)) {
    return fail(1, `invalid conversation id ${JSON.stringify(args.conversation)}`);
  }
  onSignals(scenario, profile);
  const startup = scenario?.startup ?? {};
  await preTurnStartup(startup, args);
  await startSession({
    args,
    scenario,
    version,
    profile,
    printMode,
    jsonSchema,
    noInit: startup.noInit === true,
  });
}

/**
 * Checks the input and output formats, and answers a print-mode slash command (which exits).
 * @returns whether this is print mode (`-p <prompt>`, stdin unused: one turn, then exit).
 */
async function checkMode(args: SimArgs): Promise<boolean> {
  if (args.inputFormat === 'stream-json' && args.outputFormat !== 'stream-json') {
    return fail(2, '--input-format stream-json requires --output-format stream-json');
  }
  // Print mode, as the jdiazromeral captures were made: one turn, then exit.
  const printMode = args.inputFormat === undefined && args.print !== undefined;
  if (printMode && !args.disableSlashCommands && args.print?.trimStart().startsWith('/')) {
    // Slash commands answer before any init (agy-real/jdiazromeral-agy-plugin-cc/command_result-…ndjson).
    let lines: string[];
    try {
      lines = runSlashCommand(args.print, args.outputFormat ?? 'text', args.model, args.effort);
    } catch (err) {
      if (err instanceof SlashCommandError) return fail(err.exitCode, err.message);
      throw err;
    }
    for (const line of lines) await emitter.raw(`${line}\n`);
    return exit(0);
  }
  if (
    !(printMode && args.outputFormat === 'stream-json') &&
    (args.inputFormat !== 'stream-json' || args.outputFormat !== 'stream-json')
  ) {
    return fail(
      2,
      'the agy simulator supports only --input-format stream-json --output-format stream-json, or -p <prompt> --output-format stream-json',
    );
  }
  return printMode;
}

/**
 * SIGINT ends a running turn as interrupted; with nothing running it is a plain Ctrl-C. SIGTERM is immediate.
 * However the process ends (short of a signal that kills it outright), stdio MCP servers and hook commands
 * still running are signalled: an idle SIGINT, SIGTERM, a crash or an `exit` action leaves none behind.
 */
function onSignals(scenario: Scenario | undefined, profile: AgyProfile): void {
  process.on('SIGINT', () => {
    if (scenario?.interrupt?.ignore) return;
    if (runner?.interrupt()) return;
    conversation?.save();
    process.exit(130);
  });
  // SIGTERM during a turn ends it as SIGINT does (1.3.1: agy-real/littlebearapps-untether-agy-1.3.1/interrupted_sigterm.script);
  // 1.5 ignores it, so only SIGKILL ends the process (docs/reference/process.md#agy-15-ignores-sigterm).
  process.on('SIGTERM', () => {
    if (profile.sigterm === 'ignore') return;
    if (runner?.interrupt()) return;
    conversation?.save();
    process.exit(143);
  });
  process.on('exit', () => runtime?.killNow('SIGTERM'));
}

/** The scenario's startup delay and exits, then the pre-turn failures (sign-out, a rejected model). */
async function preTurnStartup(startup: ScenarioStartup, args: SimArgs): Promise<void> {
  if (startup.delayMs) await sleep(startup.delayMs);
  if (startup.exitBeforeInit) {
    if (startup.exitBeforeInit.stderr !== undefined) await emitter.stderr(startup.exitBeforeInit.stderr);
    return exit(startup.exitBeforeInit.code);
  }
  // Pre-turn failures write one lone `result` (empty conversation id) and exit 1 (docs/reference/stream-json.md#failure-before-the-turn).
  if (startup.authFail) {
    // agy 1.3.2 signed out (agy-real/littlebearapps-untether-agy-1.3.1/unauth.script): the login hint, the lone
    // result, then the error line.
    await emitter.stderr("Error: authentication required. Run 'agy' to log in, then retry.");
    await emitter.line(preTurnFailure('authentication failed or timed out'));
    await emitter.flush();
    await emitter.stderr('error: authentication failed or timed out');
    return exit(1);
  }
  const modelError = modelSelectionError(args.model, args.effort);
  if (modelError !== undefined) {
    // agy-real/joiomi-playbook-plugin-agy-1.2.17/error-model-rejected.stderr, …-1.3.1/error-model-rejected.stdout
    await emitter.stderr(`error: ${modelError}`);
    await emitter.line(preTurnFailure(modelError));
    return exit(1);
  }
}

/** What the checked command line and scenario decided, for the session's start. */
interface Launch {
  args: SimArgs;
  scenario: Scenario | undefined;
  version: string;
  profile: AgyProfile;
  printMode: boolean;
  jsonSchema: object | undefined;
  /** `startup.noInit`: no `init` line. */
  noInit: boolean;
}

/**
 * Loads what agy loads, opens the conversation, writes `init`, connects MCP while the SessionStart hooks run,
 * then plays the print-mode turn or reads stdin.
 */
async function startSession(launch: Launch): Promise<void> {
  const { args, version, profile } = launch;
  const workspaces = usableWorkspaces(args.addDirs, process.cwd());
  const loaded = await loadRuntime(workspaces, args, version);
  runtime = loaded;
  const endpoint = await openEndpoint(loaded);
  const opened = await orFail(1, StateError, () => openConversation(args, profile.unknownConversation));
  const conv = opened.conv;
  conversation = conv;
  if (opened.notFound !== undefined)
    await emitter.stderr(`warning: conversation "${opened.notFound}" not found`);
  if (!launch.noInit) await writeInit(conv, launch, loaded);
  // MCP servers connect in parallel while the SessionStart hooks run; stdin waits (in the pipe) meanwhile.
  await Promise.all([
    loaded.connectMcp((line) => emitter.stderr(line)),
    sessionStartHooks(loaded, conv, emitter),
  ]);

  runner = new TurnRunner({
    conv,
    emitter,
    scenario: launch.scenario,
    printTimeoutMs: args.printTimeoutMs,
    structured: args.jsonSchema !== undefined,
    jsonSchema: launch.jsonSchema,
    workspace: workspaces[0],
    exit,
    runtime: loaded,
    profile,
    notice: conv.resumed
      ? 'resumed'
      : !opened.known ||
          (args.agent !== undefined && !loaded.config.agents.some((a) => a.name === args.agent))
        ? 'fallback'
        : undefined,
    endpoint,
  });
  if (launch.printMode) {
    await runner.run(args.print ?? '');
    return exit(0);
  }
  new Session({
    conv,
    emitter,
    runner,
    slashCommands: args.disableSlashCommands ? 'none' : olderThan(version, '1.3.2') ? 'all' : 'known',
    exit,
    crash,
  }).start();
}

/**
 * Plugins, rules, custom agents, hooks and MCP config (README "Plugins, hooks and MCP"), their warnings on
 * stderr; an unparsable mcp_config.json ends the run here, as it does agy's.
 */
async function loadRuntime(workspaces: string[], args: SimArgs, version: string): Promise<SimRuntime> {
  const warnings: string[] = [];
  let loaded: SimRuntime;
  try {
    loaded = SimRuntime.load(
      {
        workspaces,
        model: args.model,
        skipPermissions: args.skipPermissions,
        version,
      },
      (line) => warnings.push(line),
    );
  } catch (err) {
    if (!(err instanceof McpConfigError)) throw err;
    for (const line of warnings) await emitter.stderr(line);
    return fail(1, err.message);
  }
  for (const line of warnings) await emitter.stderr(line);
  return loaded;
}

/** Endpoint mode (model-endpoint.ts), when configured: a base URL that is no http(s) URL is a pre-turn failure. */
async function openEndpoint(loaded: SimRuntime): Promise<ModelEndpointSession | undefined> {
  try {
    const config = modelEndpointConfig(loaded.config.home, process.env, loaded.modelName);
    return config === undefined ? undefined : new ModelEndpointSession(config);
  } catch (err) {
    return fail(1, (err as Error).message);
  }
}

async function writeInit(conv: Conversation, launch: Launch, loaded: SimRuntime): Promise<void> {
  const { args, version, profile } = launch;
  await emitter.line(
    initEnvelope(conv.id, {
      cwd: process.cwd(),
      // 1.3.2 names the account's default model without --model
      // (agy-real/littlebearapps-untether-agy-1.3.1/slash_prompt_literal.script).
      model: args.model ?? (olderThan(version, '1.3.2') ? undefined : 'gemini-3.8-flash'),
      agent: args.agent,
      tools: profile.tools,
      permissionMode: loaded.permissionMode,
      jsonSchema: olderThan(version, '1.3.0') ? undefined : launch.jsonSchema,
    }),
  );
}

/**
 * Resumes `--conversation <id>` (or, with `--continue`, the latest one) from the state directory. An unknown id
 * starts a fresh conversation under that id (`known` false: agy 1.1.9 then writes an `unknown` fallback step);
 * only a real resume writes the `system_message` notice. 1.3.x instead warns `conversation "<id>" not found` and
 * opens a new conversation under a fresh id (`notFound`; agy-real/littlebearapps-untether-agy-1.3.1/unknown_conversation.script).
 */
function openConversation(
  args: SimArgs,
  unknown: 'fallback' | 'new',
): { conv: Conversation; known: boolean; notFound?: string } {
  const dir = stateDirFromEnv(process.env);
  const store = StateStore.open(dir, !process.env.AGY_SIM_STATE_DIR);
  const asked = args.conversation ?? (args.continueLatest ? store.latest() : undefined);
  if (args.conversation !== undefined && unknown === 'new' && store.load(args.conversation) === undefined) {
    const conv = new Conversation(store, fresh(randomUUID()), false);
    conv.save();
    return { conv, known: true, notFound: args.conversation };
  }
  const id = asked ?? randomUUID();
  const saved = store.load(id);
  const conv = new Conversation(store, saved ?? fresh(id), saved !== undefined);
  conv.save();
  return { conv, known: args.conversation === undefined || saved !== undefined };
}

main(process.argv.slice(2)).catch(crash);
