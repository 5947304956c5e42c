/**
 * Model selection checks agy makes before anything else, with its exact wording
 * (agy-real/joiomi-playbook-plugin-agy-1.2.17/error-model-rejected.stderr, error-model-effort-conflict.*), and
 * the `agy models` subcommand (docs/reference/process.md#sign-in-probe).
 */

/** The models agy 1.2.17/1.3.1 offered in the captured rejection, as it lists them. */
export const AVAILABLE_MODELS: readonly string[] = [
  'Gemini 3.8 Flash (High)',
  'Gemini 3.8 Flash (Medium)',
  'Gemini 3.8 Flash (Low)',
  'Gemini 3.7 Flash (High)',
  'Gemini 3.7 Flash (Medium)',
  'Gemini 3.7 Flash (Low)',
  'Gemini 3.6 Flash (High)',
  'Gemini 3.6 Flash (Medium)',
  'Gemini 3.6 Flash (Low)',
  'Gemini 3.1 Pro (High)',
  'Gemini 3.1 Pro (Low)',
  'Claude Opus 5.5 (Low)',
  'Claude Opus 5.5 (Medium)',
  'Claude Opus 5.5 (High)',
  'Claude Sonnet 5.5 (Low)',
  'Claude Sonnet 5.5 (Medium)',
  'Claude Sonnet 5.5 (High)',
  'GPT-OSS 120B (Medium)',
];

const EFFORTS = ['low', 'medium', 'high'];

/**
 * agy's error for a model selection it refuses, or `undefined` when it accepts it. The simulator accepts any
 * model id except one containing `invalid` or `nope` (a rejected model), and refuses an id ending in an
 * effort (`-low`, `-medium`, `-high`) that `--effort` contradicts.
 */
export function modelSelectionError(
  model: string | undefined,
  effort: string | undefined,
): string | undefined {
  if (model === undefined) return undefined;
  const prefix = `invalid model selection (--model ${JSON.stringify(model)} --effort ${JSON.stringify(effort ?? '')})`;
  const lower = model.toLowerCase();
  if (lower.includes('invalid') || lower.includes('nope')) {
    const list = AVAILABLE_MODELS.map((name) => `  ${name}`).join('\n');
    return `${prefix}: model ${model} is not recognized as a known model or custom model in settings\nAvailable models:\n${list}`;
  }
  const suffix = EFFORTS.find((level) => lower.endsWith(`-${level}`));
  if (effort !== undefined && suffix !== undefined && suffix !== effort) {
    return `${prefix}: --model ${model} conflicts with --effort=${effort}`;
  }
  return undefined;
}

/** `gemini-3.8-flash-medium` → `Gemini 3.8 Flash (Medium)`: the label agy shows for a model id. */
export function modelLabel(id: string): string {
  const words = id.split('-');
  const last = words.at(-1) ?? '';
  const effort = EFFORTS.includes(last) ? words.pop() : undefined;
  const name = words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join(' ');
  return effort === undefined ? name : `${name} (${effort.charAt(0).toUpperCase()}${effort.slice(1)})`;
}

/** The effort part of a model id (`medium` for `gemini-3.8-flash-medium`), if any. */
export function modelEffort(id: string): string | undefined {
  return EFFORTS.find((level) => id.endsWith(`-${level}`));
}

/** What a signed-out agy writes on stderr (agy-real/littlebearapps-untether-agy-1.3.1/unauth.script). */
export const SIGNED_OUT_STDERR = "Error: authentication required. Run 'agy' to log in, then retry.";

/**
 * `agy models`: signed in, the models the login offers, one label per line (the real listing is not captured;
 * these are the labels of the captured "Available models" list); signed out, {@link SIGNED_OUT_STDERR} and exit 1.
 */
export function modelsCommand(signedIn: boolean): { stdout: string; stderr?: string; exitCode: number } {
  if (!signedIn) return { stdout: '', stderr: SIGNED_OUT_STDERR, exitCode: 1 };
  return { stdout: AVAILABLE_MODELS.map((label) => `${label}\n`).join(''), exitCode: 0 };
}
