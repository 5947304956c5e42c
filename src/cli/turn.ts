/** One turn through a renderer: shared by `run` (once) and `chat` (per prompt). */
import type { Agent, TurnResult } from '../index.js';
import type { TurnRenderer } from './render/renderer.js';

/** Sends `prompt`, renders every step as it arrives and the result at the end. */
export async function renderTurn(
  agent: Agent,
  prompt: string,
  renderer: TurnRenderer,
  options: { showStructured: boolean },
): Promise<TurnResult> {
  const response = await agent.chat(prompt);
  try {
    for await (const step of response.steps()) renderer.step(step);
  } finally {
    renderer.dispose();
  }
  const result = await response.result();
  renderer.end(result, options);
  return result;
}
