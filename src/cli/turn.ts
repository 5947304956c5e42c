/** One turn through a renderer: shared by `run` (once) and `chat` (per prompt). */
import type { Agent, TurnResult } from '../index.js';
import type { TurnRenderer } from './render/renderer.js';

/**
 * Sends `prompt`, renders every step as it arrives and the result at the end (whatever the status: success,
 * interrupted, timeout, an error, a denial). The renderer shows the model working from the moment the prompt is
 * sent; anything animated is stopped even when the turn cannot be sent.
 */
export async function renderTurn(
  agent: Agent,
  prompt: string,
  renderer: TurnRenderer,
  options: { showStructured: boolean },
): Promise<TurnResult> {
  renderer.start();
  let result: TurnResult;
  try {
    const response = await agent.chat(prompt);
    for await (const step of response.steps()) renderer.step(step);
    result = await response.result();
  } finally {
    renderer.dispose();
  }
  renderer.end(result, options);
  return result;
}
