/**
 * The scenario format that drives the agy simulator (`agy-sdk/testing`).
 *
 * A scenario is a JSON file named by the `AGY_SIM_SCENARIO` environment variable. Without one the simulator
 * runs a small default script (an echo reply plus a `list_dir` tool step), so the offline demo has something
 * to say. Every wire shape the simulator writes follows `shared/reference/agy-cli.md` §D.3.
 */

/** Token usage in wire form (snake_case), as a scenario gives it for one model step. */
export interface ScenarioUsage {
  input_tokens?: number;
  output_tokens?: number;
  thinking_tokens?: number;
  cache_read_tokens?: number;
}

/** Stream a model text response as one `agent_response` step. */
export interface TextAction {
  /** The text, split into `chunks` ACTIVE `text_delta` updates (the DONE update carries the last one). */
  text: string;
  /** How many deltas to split the text into. Default 2. */
  chunks?: number;
  /** Usage on the DONE update. Default: derived from the text length. `null` omits usage. */
  usage?: ScenarioUsage | null;
  /** Repeat the DONE update this many extra times (agy sometimes repeats it; usage must count once). */
  duplicateDone?: number;
  /** End the step in ERROR instead of DONE (a model error). */
  error?: boolean;
  /** Delay between deltas, in ms. Default 0. */
  delayMs?: number;
}

/** Run a tool step: ACTIVE, then DONE (or ERROR). */
export interface ToolAction {
  tool: {
    /** agy's tool name, e.g. `run_command`, `view_file`. */
    name: string;
    /** Parameters with agy's PascalCase keys, e.g. `{ "CommandLine": "ls" }`. */
    parameters?: Record<string, unknown>;
    /** The tool output on DONE. */
    output?: unknown;
    /** A tool failure: the step ends in ERROR with `tool_info.error`. */
    error?: { type?: string; message?: string };
    /** Stop after the ACTIVE update: no DONE ever comes (a tool cut off by an interrupt). */
    hang?: boolean;
  };
}

/** Soft-deny an action, as headless agy does: the tool step ends in ERROR and `denied_actions` grows. */
export interface DenyAction {
  deny: {
    action: string;
    display_name?: string;
    /** The tool step's `tool_name`. Default: the action name. */
    tool?: string;
    /** The tool step's `tool_info.parameters`. Default `{}`. */
    parameters?: Record<string, unknown>;
  };
}

/** Emit a `system_message` step. */
export interface SystemMessageAction {
  systemMessage: string;
}

/** Emit a step of an arbitrary (possibly unknown) type, to test drift tolerance. */
export interface CustomStepAction {
  step: Record<string, unknown>;
}

/** Wait, then continue. */
export interface SleepAction {
  sleep: number;
}

/** Stop emitting for good (until a signal arrives): a stall for the watchdog to catch. */
export interface StallAction {
  stall: true;
}

/** Write a line to stderr. */
export interface StderrAction {
  stderr: string;
}

/** Write raw text to stdout verbatim (no newline added): garbage lines, partial lines. */
export interface RawAction {
  raw: string;
}

/** Write raw bytes (base64) to stdout, flushing after each chunk: a UTF-8 character split across writes. */
export interface RawBytesAction {
  rawBytes: string[];
}

/** Stream one `agent_response` step whose single delta is `bytes` long (a huge line). */
export interface HugeTextAction {
  hugeText: number;
}

/**
 * Stream one `agent_response` step of `count` deltas, each the wall-clock time it was written
 * (`performance.timeOrigin + performance.now()`, in ms, as text), `intervalMs` apart: a latency probe.
 */
export interface TimestampDeltasAction {
  timestampDeltas: { count: number; intervalMs?: number };
}

/** Exit now with this code, without a `result` (a crash mid-turn). */
export interface ExitAction {
  exit: number;
}

/** Kill itself with a signal (a hard crash). */
export interface KillSelfAction {
  killSelf: 'SIGKILL' | 'SIGSEGV' | 'SIGTERM';
}

/** Spawn a long-lived grandchild process and report its pid on stderr as `[agy-sim] child pid <n>`. */
export interface SpawnChildAction {
  spawnChild: {
    /** Put the child in its own session (setsid), outside agy's process group. */
    detached?: boolean;
    /** Let the child inherit the simulator's stdout/stderr, so the pipes stay open after agy exits. Default false. */
    inheritStdio?: boolean;
  };
}

/** Write an event with an unknown `event` name (forward compatibility). */
export interface UnknownEventAction {
  unknownEvent: string;
}

export type ScenarioAction =
  | TextAction
  | ToolAction
  | DenyAction
  | SystemMessageAction
  | CustomStepAction
  | SleepAction
  | StallAction
  | StderrAction
  | RawAction
  | RawBytesAction
  | HugeTextAction
  | TimestampDeltasAction
  | ExitAction
  | KillSelfAction
  | SpawnChildAction
  | UnknownEventAction;

/** How the turn ends. */
export interface ScenarioTurnEnd {
  /** `result.status`. Default `SUCCESS`. */
  status?: string;
  /** `result.error`. */
  error?: string;
  /** `result.response`. Default: the last text of the turn. */
  response?: string;
  /** `result.structured_output` (only written when `--json-schema` was given, unless `forceStructured`). */
  structuredOutput?: unknown;
  /** Write `structured_output` even without `--json-schema` (a drifted agy). */
  forceStructured?: boolean;
  /** Quota exhaustion as agy 1.2.17 reports it: stderr markers, status ERROR, exit 3. */
  quota?: boolean;
  /** The 1.2.17 print timeout: exit 0, status SUCCESS, partial text, all-zero usage, a stderr marker. */
  printTimeout?: boolean;
  /** Exit with this code right after the `result` (e.g. 1 for an error turn). */
  exitAfter?: number;
  /** Write no `result` line and exit 0: a cut stream (antigravity-cli #902/#947). */
  noResult?: boolean;
}

/** One scripted turn. Turns are consumed in order across the conversation, restarts included. */
export interface ScenarioTurn {
  /** If set, the prompt must contain this text; otherwise the turn fails with a result ERROR. */
  expectPrompt?: string;
  actions: ScenarioAction[];
  end?: ScenarioTurnEnd;
}

/** Launch behaviour, before any input. */
export interface ScenarioStartup {
  /** Delay before `init`, in ms. */
  delayMs?: number;
  /** Fail sign-in: a lone `result` ERROR "authentication failed or timed out", then exit 1. */
  authFail?: boolean;
  /** Exit before `init` with this code (and optional stderr). */
  exitBeforeInit?: { code: number; stderr?: string };
  /** Never write `init`. */
  noInit?: boolean;
}

/** How SIGINT during a turn is reported. */
export interface ScenarioInterrupt {
  /** `INTERRUPTED` (default) or `ERROR` with error `interrupted`; both are seen in the wild. */
  status?: 'INTERRUPTED' | 'ERROR';
  /** Exit code after the interrupted `result`. Default 0. */
  exitCode?: number;
  /** Ignore SIGINT entirely (a wedged agy), so only SIGTERM/SIGKILL end it. */
  ignore?: boolean;
}

export interface Scenario {
  /** What `agy --version` prints. Default `1.2.17`. */
  version?: string;
  startup?: ScenarioStartup;
  interrupt?: ScenarioInterrupt;
  turns?: ScenarioTurn[];
  /** What to do once `turns` run out: `echo` (default) replies with the prompt, `error` fails the turn. */
  afterTurns?: 'echo' | 'error';
}
