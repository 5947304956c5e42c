/**
 * Command-line parsing with agy's (Go pflag) conventions: `--flag value` and `--flag=value`, `-p value`,
 * `-p=value` and `-pvalue`; a string flag takes the next argument even when it starts with `-`, so a bare
 * `-p` swallows the following flag, exactly as agy does (docs/reference/stream-json.md#no-print-flag-in-stream-mode).
 */
import { parseGoDuration } from './duration.js';

/** A flag error: agy prints `error: <message>` and exits 2. */
export class FlagError extends Error {}

/** Default `--print-timeout` (docs/reference/stream-json.md#print-timeout-flag). */
export const DEFAULT_PRINT_TIMEOUT_MS = 5 * 60_000;

/** Everything the simulator takes from its command line. */
export interface SimArgs {
  version: boolean;
  help: boolean;
  inputFormat?: string;
  outputFormat?: string;
  /** `--print-timeout` in ms; `0` or less means no limit. */
  printTimeoutMs: number;
  addDirs: string[];
  model?: string;
  effort?: string;
  conversation?: string;
  /** `-c/--continue`: resume the most recent conversation in the state directory. */
  continueLatest: boolean;
  /** The raw `--json-schema` value (inline JSON or a file path). */
  jsonSchema?: string;
  skipPermissions: boolean;
  /** `-p/--print`: print mode's prompt; ignored with `--input-format stream-json`, as agy ignores it. */
  print?: string;
  disableSlashCommands: boolean;
  agent?: string;
  /** `--mode`: checked against the imitated build's flags by {@link checkProfileFlags}. */
  mode?: string;
  /** `--sandbox`: checked against the imitated build's flags by {@link checkProfileFlags}. */
  sandbox: boolean;
}

type StringKey =
  | 'inputFormat'
  | 'outputFormat'
  | 'model'
  | 'effort'
  | 'conversation'
  | 'jsonSchema'
  | 'print'
  | 'agent'
  | 'mode';
type BoolKey = 'version' | 'help' | 'continueLatest' | 'skipPermissions' | 'disableSlashCommands' | 'sandbox';

interface StringFlag {
  kind: 'string';
  apply: (args: SimArgs, value: string, name: string) => void;
}
interface BoolFlag {
  kind: 'bool';
  key: BoolKey | undefined;
}
type FlagSpec = StringFlag | BoolFlag;

function setString(key: StringKey): StringFlag {
  return {
    kind: 'string',
    apply: (args, value) => {
      args[key] = value;
    },
  };
}

function oneOf(key: StringKey, allowed: readonly string[]): StringFlag {
  return {
    kind: 'string',
    apply: (args, value, name) => {
      if (!allowed.includes(value)) {
        throw new FlagError(
          `invalid argument "${value}" for "${name}" flag: must be one of ${allowed.join(', ')}`,
        );
      }
      args[key] = value;
    },
  };
}

/** Flags that agy accepts but the simulator has no use for (docs/reference/stream-json.md#other-flags-and-subcommands). */
const ignoredString: StringFlag = { kind: 'string', apply: () => {} };

const LONG_FLAGS: Record<string, FlagSpec> = {
  version: { kind: 'bool', key: 'version' },
  help: { kind: 'bool', key: 'help' },
  'input-format': oneOf('inputFormat', ['text', 'stream-json']),
  'output-format': oneOf('outputFormat', ['text', 'json', 'stream-json']),
  'print-timeout': {
    kind: 'string',
    apply: (args, value, name) => {
      const ms = parseGoDuration(value);
      if (ms === undefined) {
        throw new FlagError(
          `invalid argument "${value}" for "${name}" flag: time: invalid duration "${value}"`,
        );
      }
      args.printTimeoutMs = ms;
    },
  },
  'add-dir': {
    kind: 'string',
    apply: (args, value) => {
      args.addDirs.push(value);
    },
  },
  model: setString('model'),
  // Every value any build takes; the imitated build's own list is checked by checkProfileFlags.
  effort: oneOf('effort', ['low', 'medium', 'high', 'xhigh', 'max']),
  conversation: setString('conversation'),
  continue: { kind: 'bool', key: 'continueLatest' },
  'json-schema': setString('jsonSchema'),
  'dangerously-skip-permissions': { kind: 'bool', key: 'skipPermissions' },
  print: setString('print'),
  'disable-slash-commands': { kind: 'bool', key: 'disableSlashCommands' },
  agent: setString('agent'),
  mode: oneOf('mode', ['accept-edits', 'plan']),
  project: ignoredString,
  'log-file': ignoredString,
  sandbox: { kind: 'bool', key: 'sandbox' },
};

const SHORT_FLAGS: Record<string, string> = { p: 'print', c: 'continue', h: 'help', v: 'version' };

/**
 * Parses agy's command line.
 *
 * @throws FlagError for an unknown flag, a missing or invalid value, or a positional argument.
 */
export function parseArgs(argv: readonly string[]): SimArgs {
  const args: SimArgs = {
    version: false,
    help: false,
    printTimeoutMs: DEFAULT_PRINT_TIMEOUT_MS,
    addDirs: [],
    continueLatest: false,
    skipPermissions: false,
    disableSlashCommands: false,
    sandbox: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      if (i + 1 < argv.length) throw new FlagError(`unexpected argument "${argv[i + 1]}"`);
      break;
    }
    let display: string;
    let spec: FlagSpec | undefined;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq === -1 ? undefined : arg.slice(eq + 1);
      display = `--${name}`;
      spec = LONG_FLAGS[name];
    } else if (arg.startsWith('-') && arg.length > 1) {
      const letter = arg[1] as string;
      display = `-${letter}`;
      const long = SHORT_FLAGS[letter];
      spec = long === undefined ? undefined : LONG_FLAGS[long];
      if (arg.length > 2) inline = arg[2] === '=' ? arg.slice(3) : arg.slice(2);
      if (spec?.kind === 'bool' && inline !== undefined && arg[2] !== '=') {
        // Combined boolean shorthands (`-ch`) are not something agy users pass; refuse them clearly.
        throw new FlagError(`unknown shorthand flag: '${arg[2]}' in ${arg}`);
      }
    } else {
      throw new FlagError(`unexpected argument "${arg}"`);
    }
    if (spec === undefined) {
      throw new FlagError(
        arg.startsWith('--') ? `unknown flag: ${display}` : `unknown shorthand flag: ${arg}`,
      );
    }
    if (spec.kind === 'bool') {
      const value = inline === undefined ? true : parseBool(inline, display);
      if (spec.key !== undefined) args[spec.key] = value;
      continue;
    }
    let value = inline;
    if (value === undefined) {
      if (i + 1 >= argv.length) throw new FlagError(`flag needs an argument: ${display}`);
      value = argv[++i] as string;
    }
    spec.apply(args, value, display);
  }
  return args;
}

/** The turn-shaping flags one agy build accepts (`AgyProfile.flags`). */
export interface ProfileFlags {
  /** `--effort` values. */
  readonly efforts: readonly string[];
  /** `--mode` values (empty: no `--mode` flag). */
  readonly modes: readonly string[];
  /** Whether `--sandbox` exists. */
  readonly sandbox: boolean;
}

/**
 * Refuses what the imitated build does not know, the way it refuses a flag error (exit 2): a flag it lacks is
 * `unknown flag`, a value it lacks is `invalid argument` (docs/reference/stream-json.md#flags-by-version).
 *
 * @throws FlagError naming the flag and, for a value, the build's values.
 */
export function checkProfileFlags(args: SimArgs, flags: ProfileFlags): void {
  if (args.effort !== undefined && !flags.efforts.includes(args.effort))
    throw new FlagError(
      `invalid argument "${args.effort}" for "--effort" flag: must be one of ${flags.efforts.join(', ')}`,
    );
  if (args.mode !== undefined && flags.modes.length === 0) throw new FlagError('unknown flag: --mode');
  if (args.mode !== undefined && !flags.modes.includes(args.mode))
    throw new FlagError(
      `invalid argument "${args.mode}" for "--mode" flag: must be one of ${flags.modes.join(', ')}`,
    );
  if (args.sandbox && !flags.sandbox) throw new FlagError('unknown flag: --sandbox');
}

function parseBool(text: string, name: string): boolean {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(text)) return false;
  throw new FlagError(
    `invalid argument "${text}" for "${name}" flag: strconv.ParseBool: parsing "${text}": invalid syntax`,
  );
}

/** The text `--help` prints. */
export const HELP_TEXT = `agy (simulator) — an offline stand-in for Google's agy CLI, stream-json mode only.

Usage:
  agy --input-format stream-json --output-format stream-json [flags]
  agy models                           list the models (signed out with a scenario's startup.authFail)

Flags:
      --add-dir <dir>                  add a tool workspace directory (repeatable)
      --agent <name>                   select a custom agent (accepted, ignored)
  -c, --continue                       resume the most recent conversation
      --conversation <id>              resume a conversation
      --dangerously-skip-permissions   permission mode always-proceed
      --disable-slash-commands         treat prompts starting with "/" as plain text
      --effort low|medium|high         reasoning effort (accepted, ignored)
      --mode accept-edits|plan         accepted per imitated build (plan from 1.1.2, accept-edits from 1.3.1)
  -h, --help                           show this help
      --input-format stream-json       read user messages as JSON lines on stdin
      --json-schema <json|file>        return structured_output in each result
      --model <id>                     model (one containing "invalid" or "nope" is rejected)
      --output-format stream-json      write init/step_update/result JSON lines
      --sandbox                        accepted from 1.1.9 (recorded nowhere on the wire, as agy)
  -p, --print <prompt>                 print mode: one turn (slash commands: /model, /quota, /usage);
                                       ignored with --input-format stream-json
      --print-timeout <duration>       per-turn limit, Go duration (default 5m0s, 0 = none)
  -v, --version                        print the version

Environment:
  AGY_SIM_SCENARIO     path of a scenario JSON file (default: a built-in echo script)
  AGY_SIM_STATE_DIR    where conversation state is kept (default: <tmpdir>/agy-sim-state-<uid>)
  AGY_SIM_VERSION      the agy build to imitate when the scenario names none (default: 1.3.1)
`;
