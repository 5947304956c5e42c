/**
 * What an Agent needs to run a cassette instead of agy: the simulator as `agyPath` and the cassette mode's
 * environment (`agy-sim --cassette`, `replay-agy.ts`).
 */
import { simulatorPath } from '../simulator/path.js';

/** How a cassette is replayed. */
export interface ReplayOptions {
  /** `strict` (default): a stdin line that differs from the recording fails the turn with a `CassetteMismatchError`; `loose`: warned on stderr, the replay goes on. */
  mode?: 'strict' | 'loose' | undefined;
  /** `none` (default): as fast as the SDK reads; `real`: the recorded gaps; a number: that many times faster. */
  timing?: 'none' | 'real' | number | undefined;
}

/** What {@link replayCassette} returns: spread it into an `AgentConfig`. */
export interface ReplayConfig {
  /** The simulator's executable. */
  agyPath: string;
  /** The cassette mode's environment (`AGY_SIM_CASSETTE`, and the mode and timing when given). */
  env: Record<string, string>;
}

/**
 * The `agyPath` and `env` that make an Agent replay `file`: spread them into its config, e.g.
 * `new Agent({ ...replayCassette(file), tools, policies })`. The session's own tools, hooks and policies run
 * again on the recorded calls.
 */
export function replayCassette(file: string, options: ReplayOptions = {}): ReplayConfig {
  const env: Record<string, string> = { AGY_SIM_CASSETTE: file };
  if (options.mode) env.AGY_SIM_CASSETTE_MODE = options.mode;
  if (options.timing !== undefined) env.AGY_SIM_CASSETTE_TIMING = String(options.timing);
  return { agyPath: simulatorPath(), env };
}
