/**
 * Slash commands in print mode (`agy -p /model …`): agy answers without starting a conversation — no `init`,
 * no steps — with a `command_result` event `{"event":"command_result","command":{"name","data"}}` and a
 * `result` (empty conversation id, zero usage, `num_turns` 0) carrying the same payload under `command`
 * (agy-real/jdiazromeral-agy-plugin-cc/command_result-2026-09-20-run1.ndjson). With `--output-format json`
 * only the bare result object is written (agy-real/joiomi-playbook-plugin-agy-1.3.1/quota.stdout); with text,
 * only its `response`.
 */
import { modelEffort, modelLabel } from './models.js';
import { zeroUsage } from './usage.js';

/** An unknown slash command: `error: <message>` on stderr, then this exit code. */
export class SlashCommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** The model `/model` reports when `--model` was not given (the captured default). */
const DEFAULT_MODEL = 'gemini-3.8-flash-medium';

interface CommandPayload {
  name: string;
  data: Record<string, unknown>;
  response: string;
}

/** `/quota` (alias `/usage`): the captured quota groups; agy names the command `usage` either way. */
function usageCommand(): CommandPayload {
  const reset = (hours: number): string =>
    `${new Date(Date.now() + hours * 3_600_000).toISOString().slice(0, 19)}Z`;
  const groups = [
    {
      name: 'Gemini Models',
      description: 'Models within this group: Gemini Flash, Gemini Pro',
      buckets: [
        {
          id: 'gemini-weekly',
          name: 'Weekly Limit Remaining',
          description: 'You have used some of your weekly limit.',
          window: 'weekly',
          remaining_fraction: 0.55,
          reset_time: reset(120),
        },
        {
          id: 'gemini-5h',
          name: 'Five Hour Limit Remaining',
          description: 'You have used some of your 5-hour limit.',
          window: '5h',
          remaining_fraction: 0.99,
          reset_time: reset(5),
        },
      ],
    },
    {
      name: 'Claude and GPT models',
      description: 'Models within this group: Claude Opus, Claude Sonnet, GPT-OSS',
      buckets: [
        {
          id: '3p-weekly',
          name: 'Weekly Limit Remaining',
          window: 'weekly',
          remaining_fraction: 1,
          reset_time: reset(168),
        },
        {
          id: '3p-5h',
          name: 'Five Hour Limit Remaining',
          window: '5h',
          remaining_fraction: 1,
          reset_time: reset(5),
        },
      ],
    },
  ];
  const response = groups
    .flatMap((group) =>
      group.buckets.map(
        (b) => `${group.name}\t${b.name}\t${Math.round(b.remaining_fraction * 100)}%\t${b.reset_time}\n`,
      ),
    )
    .join('');
  return {
    name: 'usage',
    data: {
      description:
        'Within each group, models share a weekly limit and a 5-hour limit. Quota is consumed proportionally to the cost of the tokens.',
      groups,
    },
    response,
  };
}

function modelCommand(model: string | undefined): CommandPayload {
  const id = model ?? DEFAULT_MODEL;
  const label = modelLabel(id);
  return {
    name: 'model',
    data: { id, label, effort: modelEffort(id) ?? 'medium', is_default: false },
    response: `${id}\t${label}\n`,
  };
}

/**
 * `/effort`: `{adjustable, current, available}` (agy-real/littlebearapps-untether-agy-1.3.1/effort.script);
 * `current` is `--effort`, else the model's own effort.
 */
function effortCommand(model: string | undefined, effort: string | undefined): CommandPayload {
  const current = effort ?? modelEffort(model ?? DEFAULT_MODEL) ?? 'medium';
  return {
    name: 'effort',
    data: { adjustable: true, current, available: ['low', 'medium', 'high'] },
    response: `${current}\n`,
  };
}

/**
 * The output lines for a slash command prompt.
 *
 * @throws SlashCommandError for an unknown command.
 */
export function runSlashCommand(
  prompt: string,
  outputFormat: string,
  model: string | undefined,
  effort?: string,
): string[] {
  const name = prompt.trim().split(/\s+/, 1)[0] ?? '';
  let payload: CommandPayload;
  if (name === '/model') payload = modelCommand(model);
  else if (name === '/effort') payload = effortCommand(model, effort);
  else if (name === '/quota' || name === '/usage') payload = usageCommand();
  else throw new SlashCommandError(`unknown command ${JSON.stringify(name)}`, 2);
  const command = { name: payload.name, data: payload.data };
  const result = {
    conversation_id: '',
    status: 'SUCCESS',
    response: payload.response,
    duration_seconds: 0,
    num_turns: 0,
    usage: zeroUsage(),
    command,
  };
  if (outputFormat === 'json') return [JSON.stringify(result)];
  if (outputFormat === 'text') return [payload.response.replace(/\n$/, '')];
  return [JSON.stringify({ event: 'command_result', command }), JSON.stringify({ event: 'result', result })];
}
