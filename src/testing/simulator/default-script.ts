/**
 * The built-in script, used without a scenario (and after a scenario's turns run out, with `afterTurns: echo`):
 * an optional `list_dir` of the first workspace, then an echo of the prompt. It gives the offline demo something
 * real to show, and its usage is a pure function of lengths so tests can predict it.
 */
import { readdirSync } from 'node:fs';
import type { ScenarioAction, ScenarioTurn } from './scenario.js';

/** How many entries the `list_dir` output shows at most. */
const MAX_ENTRIES = 20;
/** How much of the prompt the echo repeats, in characters (code points). */
const ECHO_CHARS = 200;

/** The reply text the default script gives to `prompt`. */
export function echoText(prompt: string): string {
  const head = Array.from(prompt).slice(0, ECHO_CHARS).join('');
  return `Hello from the agy simulator (offline). You said: "${head}".`;
}

/**
 * Builds the default turn for a prompt.
 *
 * @param workspace the first usable `--add-dir`, if any: its real entries are listed.
 */
export function defaultTurn(prompt: string, workspace: string | undefined): ScenarioTurn {
  const actions: ScenarioAction[] = [];
  if (workspace !== undefined) actions.push(listDirAction(workspace));
  actions.push({ text: echoText(prompt), chunks: 3 });
  return { actions };
}

function listDirAction(dir: string): ScenarioAction {
  const parameters = { DirectoryPath: dir };
  try {
    const names = readdirSync(dir).sort().slice(0, MAX_ENTRIES);
    return { tool: { name: 'list_dir', parameters, output: names.join('\n') } };
  } catch (err) {
    return {
      tool: { name: 'list_dir', parameters, error: { type: 'TOOL_ERROR', message: (err as Error).message } },
    };
  }
}
