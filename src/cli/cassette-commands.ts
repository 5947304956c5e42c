/**
 * The cassette verbs: `cassette import <capture>` (a third-party capture → a cassette) and `show <file>`
 * (a cassette or an OTLP/JSON trace → one self-contained HTML page). Built on `agy-sdk/testing` only.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { AgySdkError } from '../index.js';
import { importCapture, parseCassette, serializeCassette, showFile } from '../testing/index.js';
import { EXIT_USAGE } from './exit-codes.js';

function exitCode(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 255) throw new InvalidArgumentError('must be an integer 0–255');
  return n;
}

/** Runs `fn`; a typed SDK error (a bad cassette or capture) is printed and is the usage exit code. */
function guarded(fn: () => void): number {
  try {
    fn();
    return 0;
  } catch (err) {
    if (!(err instanceof AgySdkError)) throw err;
    process.stderr.write(`agy-sdk: ${err.message}\n`);
    return EXIT_USAGE;
  }
}

/** Adds `cassette import` and `show` to the program. */
export function registerCassetteCommands(program: Command, exit: (code: number) => void): void {
  const cassette = program.command('cassette').description('cassettes: recorded agy sessions');
  cassette
    .command('import')
    .description('convert a third-party capture (stdout, .script, hook folder, ACP transcript) to a cassette')
    .argument('<capture>', 'the capture file or folder')
    .option('-o, --output <file>', 'write the cassette here (default: stdout)')
    .option('--exit-code <n>', 'the exit code agy ended with, when the capture does not say', exitCode)
    .option('--stderr <file>', "the capture's stderr file (default: the sibling .stderr)")
    .action((capture: string, flags: { output?: string; exitCode?: number; stderr?: string }) =>
      exit(
        guarded(() => {
          const text = serializeCassette(
            importCapture(resolve(capture), { exitCode: flags.exitCode, stderrFile: flags.stderr }),
          );
          parseCassette(text, capture);
          if (flags.output) writeFileSync(flags.output, text, { mode: 0o600 });
          else process.stdout.write(text);
        }),
      ),
    );
  program
    .command('show')
    .description(
      'write one self-contained HTML page (no network) with the timeline of a cassette or OTLP trace',
    )
    .argument('<file>', 'a cassette (.cassette.jsonl) or an OpenTelemetry trace in OTLP/JSON')
    .requiredOption('-o, --output <file>', 'the HTML file to write')
    .action((file: string, flags: { output: string }) =>
      exit(
        guarded(() => {
          writeFileSync(flags.output, showFile(resolve(file)), { mode: 0o600 });
          process.stderr.write(`wrote ${flags.output}\n`);
        }),
      ),
    );
}
