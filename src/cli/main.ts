#!/usr/bin/env node
/**
 * `agy-sdk`: the package's command. `run` (one streamed turn), `chat` (a REPL), `gateway` (the gateway on its
 * own) and `doctor` (setup checks). Built on the public API only, so it works exactly as a user's program would.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { packageRoot } from '../internal/script-path.js';
import { registerCassetteCommands } from './cassette-commands.js';
import { chatCommand } from './chat.js';
import { conformanceCommand } from './conformance.js';
import { doctorCommand } from './doctor.js';
import { EXIT_USAGE, exitCodeHelp } from './exit-codes.js';
import { exitOnSignals } from './exit-on-signals.js';
import { gatewayCommand } from './gateway-command.js';
import { runCommand } from './run.js';

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

function positiveText(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('must not be empty');
  return value;
}

/** The flags `run` and `chat` share. */
function agentOptions(command: Command): Command {
  return command
    .option('--model <model>', 'agy model id')
    .option('--workspace <dir>', 'a workspace agy may use (repeatable)', collect)
    .option('--schema <file>', 'JSON Schema file: the answer must match it; prints the validated output')
    .addOption(
      new Option('--provider <kind>', 'gateway mode: the upstream protocol').choices([
        'openai-chat',
        'openai-responses',
        'anthropic',
      ]),
    )
    .option('--base-url <url>', 'gateway mode: the upstream base URL (OpenAI kinds include /v1)')
    .option(
      '--api-key-env <VAR>',
      'gateway mode: the variable holding the upstream key (default OPENAI_API_KEY / ANTHROPIC_API_KEY)',
    )
    .option('--provider-model <model>', 'gateway mode: the upstream model every request goes to')
    .addOption(
      new Option('--isolation <mode>', 'run agy under a shadow HOME').choices(['none', 'shadow-home']),
    )
    .option('--conversation <id>', 'resume this conversation')
    .option('--offline', 'use the agy simulator instead of agy (no network, no sign-in)');
}

/** The package's version, from its package.json. */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {
    version?: string;
  };
  return pkg.version ?? 'unknown';
}

/** Builds the program; `exit` receives each command's exit code. */
export function buildProgram(exit: (code: number) => void): Command {
  const program = new Command('agy-sdk')
    .description(
      'Drive Google Antigravity (agy) headlessly: one-shot turns, a chat REPL, the gateway, setup checks.',
    )
    .version(packageVersion(), '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', `\n${exitCodeHelp()}`);
  // commander exits on its own errors with 1; bad arguments are our usage code.
  program.exitOverride((error) => {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') process.exit(0);
    process.exit(error.exitCode === 0 ? 0 : EXIT_USAGE);
  });

  agentOptions(
    program
      .command('run')
      .description('run one turn, streamed')
      .argument('<prompt>', 'the prompt', positiveText),
  )
    .option('--json', 'write the normalized events as NDJSON (for scripts)')
    .option('--record <dir>', 'record the session into a sanitized cassette in <dir>')
    .addHelpText('after', `\n${exitCodeHelp()}`)
    .action(async (prompt: string, flags) => exit(await runCommand(prompt, flags)));

  agentOptions(program.command('chat').description('interactive chat on one conversation'))
    .addOption(
      new Option('--confirm <policy>', 'which tool calls need your yes')
        .choices(['run-command', 'all', 'never', 'deny'])
        .default('run-command'),
    )
    .action(async (flags) => exit(await chatCommand(flags)));

  program
    .command('gateway')
    .description('serve the Gemini-compatible gateway for agy or Gemini CLI started by hand')
    .addOption(
      new Option('--upstream <kind>', 'upstream protocol')
        .choices(['openai-chat', 'openai-responses', 'anthropic'])
        .makeOptionMandatory(),
    )
    .requiredOption('--base-url <url>', 'upstream base URL (OpenAI kinds include /v1)')
    .option('--model-map <map>', 'Gemini model → upstream model, e.g. "gemini-*=gpt-4o,gemini-2.5-pro=o3"')
    .option('--port <port>', 'port on 127.0.0.1 (default: any free port)')
    .option(
      '--api-key-env <VAR>',
      'the variable holding the upstream key (default OPENAI_API_KEY / ANTHROPIC_API_KEY)',
    )
    .option(
      '--headers-hold-ms <ms>',
      'after the upstream answers 200, hold our status up to this long for the first content, so an ' +
        'error before any content is the HTTP status (default 5000; 0: send 200 at once)',
    )
    .action(async (flags) => exit(await gatewayCommand(flags)));

  program
    .command('doctor')
    .description('check agy, sign-in, settings, hooks, data dir and curl; print a fix for each problem')
    .option('--offline', 'check the simulator instead of agy')
    .option('--json', 'print the checks as JSON (for bug reports)')
    .option('--conformance', 'run short real turns and check every wire fact the SDK relies on')
    .option('--cassettes <dir>', 'with --conformance: where the recorded cassettes go')
    .action(async (flags) => {
      const stop = exitOnSignals();
      try {
        exit(await (flags.conformance ? conformanceCommand(flags) : doctorCommand(flags)));
      } finally {
        stop();
      }
    });
  registerCassetteCommands(program, exit);
  return program;
}

/** Sets the exit code and lets the process end on its own once everything is closed. */
function exitWith(code: number): void {
  process.exitCode = code;
  // Everything is closed by now; should a stray handle linger, it must not turn into a silent hang.
  setTimeout(() => {
    process.stderr.write('agy-sdk: a handle kept the process alive after the command ended; exiting\n');
    process.exit(code);
  }, 5000).unref();
}

await buildProgram(exitWith).parseAsync(process.argv);
