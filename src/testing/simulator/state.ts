/**
 * Per-conversation state, persisted so a process started with `--conversation <id>` continues where the last
 * one stopped: agy's `result.usage`, `num_turns` and `duration_seconds` are cumulative across restarts, and
 * `step_index` keeps counting (docs/reference/stream-json.md#cumulative-results, docs/reference/stream-json.md#step-updates). One JSON file per conversation, private to the user.
 *
 * The real agy keeps this under `~/.gemini/antigravity-cli/`; the simulator never touches that tree.
 */
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { type Usage, zeroUsage } from './usage.js';

/** Something wrong with the state directory or a state file: the simulator reports it and exits 1. */
export class StateError extends Error {}

/** What is remembered about one conversation between processes. */
export interface ConversationState {
  conversationId: string;
  /** Cumulative usage over every agent_response step so far. */
  usage: Usage;
  numTurns: number;
  durationSeconds: number;
  /** The next `step_index` to hand out. */
  nextStepIndex: number;
  /** Index of the next scenario turn to play. */
  turnCursor: number;
}

/** Conversation ids become file names, so they are restricted to a safe alphabet. */
const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Whether `id` can name a conversation. */
export function isValidConversationId(id: string): boolean {
  return ID_PATTERN.test(id);
}

/** The state directory: `$AGY_SIM_STATE_DIR`, else `<tmpdir>/agy-sim-state-<uid>`. */
export function stateDirFromEnv(env: NodeJS.ProcessEnv): string {
  const custom = env.AGY_SIM_STATE_DIR;
  if (custom !== undefined && custom !== '') return resolve(custom);
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return join(tmpdir(), `agy-sim-state-${uid}`);
}

/** Reads and writes conversation state files in one directory. */
export class StateStore {
  private constructor(readonly dir: string) {}

  /**
   * Opens (creating if needed, mode 0700) the state directory.
   *
   * @throws StateError when the directory is inside `~/.gemini`, or the shared default is not ours.
   */
  static open(dir: string, isDefault: boolean): StateStore {
    const gemini = join(homedir(), '.gemini');
    const rel = relative(gemini, dir);
    if (rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel))) {
      throw new StateError(`refusing to keep simulator state under ${gemini} (the real agy's home): ${dir}`);
    }
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new StateError(`cannot create simulator state directory ${dir}: ${(err as Error).message}`);
    }
    if (isDefault) {
      // The default lives in a shared temp dir: refuse one another user planted there (or a symlink).
      const info = lstatSync(dir);
      const uid = typeof process.getuid === 'function' ? process.getuid() : info.uid;
      if (!info.isDirectory() || info.uid !== uid) {
        throw new StateError(`simulator state directory ${dir} is not a directory owned by this user`);
      }
    }
    return new StateStore(dir);
  }

  #file(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  /**
   * Loads a conversation's state.
   *
   * @returns the state, or `undefined` when the conversation is unknown.
   * @throws StateError when the file exists but cannot be read or parsed.
   */
  load(id: string): ConversationState | undefined {
    let text: string;
    try {
      text = readFileSync(this.#file(id), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new StateError(`cannot read simulator state for conversation ${id}: ${(err as Error).message}`);
    }
    try {
      const raw = JSON.parse(text) as Partial<ConversationState>;
      const state = fresh(id);
      if (raw.usage !== undefined) Object.assign(state.usage, raw.usage);
      state.numTurns = raw.numTurns ?? 0;
      state.durationSeconds = raw.durationSeconds ?? 0;
      state.nextStepIndex = raw.nextStepIndex ?? 0;
      state.turnCursor = raw.turnCursor ?? 0;
      return state;
    } catch (err) {
      throw new StateError(`simulator state for conversation ${id} is corrupt: ${(err as Error).message}`);
    }
  }

  /** Writes a conversation's state atomically (temp file + rename), mode 0600. Synchronous so exits keep it. */
  save(state: ConversationState): void {
    const target = this.#file(state.conversationId);
    const temp = `${target}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(state)}\n`, { mode: 0o600 });
    renameSync(temp, target);
  }

  /** The id of the most recently saved conversation, for `--continue`. */
  latest(): string | undefined {
    let best: { id: string; mtime: number } | undefined;
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith('.json')) continue;
      const id = name.slice(0, -'.json'.length);
      if (!isValidConversationId(id)) continue;
      const mtime = statSync(join(this.dir, name)).mtimeMs;
      if (best === undefined || mtime > best.mtime) best = { id, mtime };
    }
    return best?.id;
  }
}

/** State for a conversation that has not run yet. */
export function fresh(id: string): ConversationState {
  return {
    conversationId: id,
    usage: zeroUsage(),
    numTurns: 0,
    durationSeconds: 0,
    nextStepIndex: 0,
    turnCursor: 0,
  };
}
