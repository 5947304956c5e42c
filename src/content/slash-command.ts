/**
 * An agy slash command as an explicit prompt part (the Python SDK's `SlashCommand`). agy answers its print-mode
 * commands only in a `-p` run (`agy -p /effort`), with a `command_result` and a `result` carrying it under
 * `command`; on stdin it refuses them with exit 2 (docs/reference/stream-json.md#slash-commands). Ordinary prompt
 * text is never read as a command: only this part runs one.
 */
import { ContentError } from '../errors.js';

/**
 * The print-mode commands agy documents (`/quota` is agy's alias of `/usage`), per
 * docs/reference/stream-json.md#slash-commands.
 */
export const PRINT_MODE_COMMANDS = [
  'agents',
  'changelog',
  'config',
  'credits',
  'effort',
  'help',
  'hooks',
  'model',
  'permissions',
  'quota',
  'skills',
  'usage',
] as const;

/** A print-mode command name. */
export type PrintModeCommand = (typeof PRINT_MODE_COMMANDS)[number];

const KNOWN = new Set<string>(PRINT_MODE_COMMANDS);

/**
 * A slash command to run instead of a model turn: `new SlashCommand('/effort')`, `new SlashCommand('/model')`.
 * The answer is `TurnResult.command` (`{name, data}`). An unknown command is a `ContentError` here, before
 * anything is written to agy.
 */
export class SlashCommand {
  /** The command's name, without the slash (`effort`). */
  readonly name: PrintModeCommand;
  /** Whatever followed the name, trimmed (`''` when nothing). */
  readonly args: string;

  /** @param command `/name [args]` (the slash is optional). Throws `ContentError` for an unknown command. */
  constructor(command: string) {
    if (typeof command !== 'string') throw new ContentError('a slash command must be a string');
    const text = command.trim().replace(/^\//, '');
    const name = text.split(/\s/, 1)[0] ?? '';
    if (!KNOWN.has(name)) {
      throw new ContentError(
        `unknown slash command ${JSON.stringify(`/${name}`)}; agy answers these in print mode: ${PRINT_MODE_COMMANDS.map((c) => `/${c}`).join(' ')}`,
      );
    }
    this.name = name as PrintModeCommand;
    this.args = text.slice(name.length).trim();
  }

  /** `/name args`, as agy takes it after `-p`. */
  toString(): string {
    return this.args ? `/${this.name} ${this.args}` : `/${this.name}`;
  }
}

/** True for a slash command part. */
export function isSlashCommand(v: unknown): v is SlashCommand {
  return v instanceof SlashCommand;
}
