/**
 * What an Agent needs to run a cassette instead of agy: the simulator as `agyPath` and the cassette mode's
 * environment (`agy-sim --cassette`, `replay-agy.ts`).
 */
import { simulatorPath } from '../simulator/path.js';
import { REMOTE_SERVERS_ENV, remoteServersEnv } from './replay-remote.js';

/** How a cassette is replayed. */
export interface ReplayOptions {
  /** `strict` (default): a stdin line that differs from the recording fails the turn with a `CassetteMismatchError`; `loose`: warned on stderr, the replay goes on. */
  mode?: 'strict' | 'loose' | undefined;
  /** `none` (default): as fast as the SDK reads; `real`: the recorded gaps; a number: that many times faster. */
  timing?: 'none' | 'real' | number | undefined;
  /**
   * The MCP servers of this session that are not on loopback which the replay may send the cassette's MCP
   * requests to: `true` for every one, or their names (the `mcpServers` key, e.g. `['notion']`). Default none:
   * a cassette is untrusted, so its requests go only to servers whose URL is literally loopback (`localhost`,
   * `127.0.0.0/8`, `[::1]`); any other host name counts as remote, whatever it resolves to, and is refused
   * before any connection. Allowed or not, a recorded tool call is sent only when this session's own PreToolUse
   * hooks (its policies, `enabledTools`, `preToolCall` hooks, budget) allow it again, and of the other requests
   * only MCP's start handshake (`initialize`, `notifications/initialized`, `tools/list`, `ping`) is replayed.
   */
  allowRemoteServers?: boolean | readonly string[] | undefined;
}

/** What {@link replayCassette} returns: spread it into an `AgentConfig`. */
export interface ReplayConfig {
  /** The simulator's executable. */
  agyPath: string;
  /**
   * The cassette mode's environment (`AGY_SIM_CASSETTE`, the remote servers allowed, and the mode and timing
   * when given).
   */
  env: Record<string, string>;
}

/**
 * The `agyPath` and `env` that make an Agent replay `file`: spread them into its config, e.g.
 * `new Agent({ ...replayCassette(file), tools, policies })`. The session's own tools, hooks and policies run
 * again on the recorded calls, and decide whether each recorded tool call reaches its server.
 *
 * @throws ConfigError (`allowRemoteServers`) when that option is not a boolean or a list of server names.
 */
export function replayCassette(file: string, options: ReplayOptions = {}): ReplayConfig {
  // Always set, so an `AGY_SIM_CASSETTE_REMOTE` inherited from the environment cannot widen this replay.
  const env: Record<string, string> = {
    AGY_SIM_CASSETTE: file,
    [REMOTE_SERVERS_ENV]: remoteServersEnv(options.allowRemoteServers),
  };
  if (options.mode) env.AGY_SIM_CASSETTE_MODE = options.mode;
  if (options.timing !== undefined) env.AGY_SIM_CASSETTE_TIMING = String(options.timing);
  return { agyPath: simulatorPath(), env };
}
