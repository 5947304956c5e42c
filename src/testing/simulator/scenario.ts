/**
 * The scenario format that drives the agy simulator (`agy-sdk/testing`).
 *
 * A scenario is a JSON file named by the `AGY_SIM_SCENARIO` environment variable. Without one the simulator
 * runs a small default script (an echo reply plus a `list_dir` tool step), so the offline demo has something
 * to say. Every wire shape the simulator writes is one a real agy build wrote (`shared/fixtures/agy-real/`,
 * which wins over docs/reference/stream-json.md#); which build is imitated is `Scenario.version` (or the
 * `AGY_SIM_VERSION` environment variable), default 1.3.1. Where no real capture exists for a shape, the
 * reference is followed and the TSDoc says so.
 *
 * Whatever the scenario, the simulator also does what agy does with the configuration it finds (README
 * "Plugins, hooks and MCP"): plugins, rules and custom agents under `<--add-dir>/.agents/` and `$HOME/.gemini/`,
 * `hooks.json` files, whose hooks run around the scripted actions, and `mcp_config.json` files, whose servers
 * it connects to after `init` (the `mcpTool` action calls them). In a scenario turn:
 *
 * - each model call (`text`, `hugeText`, `timestampDeltas`, and the text-less model step agy writes before every
 *   tool call) runs the PreInvocation hooks before it and the
 *   PostInvocation hooks after it; `invocationNum` counts the turn's calls from 0, and an injected
 *   `{"userMessage":"…"}` becomes a DONE `user_input` step carrying `user_input: {text: "…"}`;
 * - each `tool` and `mcpTool` step passes the PreToolUse hooks (which may deny it or `overwrite` its
 *   arguments) and then the PostToolUse hooks; `deny` steps run no hooks (the denial is already decided);
 * - a turn that ends normally with status SUCCESS runs the Stop hooks before its `result`; a
 *   `{"decision":"continue","reason":R}` adds an `agent_response` step `Continuing: R` (a model call) and runs
 *   Stop again, at most 3 times;
 * - the default script also answers `what are your rules?` (the always-on rule bodies), `what agents?` (the
 *   custom agents' names) and `mcp:<server>/<tool> {json args}` (calls that MCP tool and reports its output).
 */

/**
 * Token usage as a scenario gives it for one model step: in agy's wire form (snake_case) or in the SDK's own
 * camelCase (`outputTokens`), which the simulator reads as the same (snake_case wins when both are given).
 */
export interface ScenarioUsage {
  /** Prompt tokens. */
  input_tokens?: number;
  /** Response tokens. */
  output_tokens?: number;
  /** Thinking (reasoning) tokens. */
  thinking_tokens?: number;
  /** Prompt tokens read from the cache. */
  cache_read_tokens?: number;
  /** `input_tokens`, as the SDK spells it. */
  inputTokens?: number;
  /** `output_tokens`, as the SDK spells it. */
  outputTokens?: number;
  /** `thinking_tokens`, as the SDK spells it. */
  thinkingTokens?: number;
  /** `cache_read_tokens`, as the SDK spells it. */
  cacheReadTokens?: number;
}

/** Stream a model text response as one `agent_response` step (a model call: invocation hooks run around it). */
export interface TextAction {
  /** The text, split into `chunks` ACTIVE `text_delta` updates (the DONE update carries the last one). */
  text: string;
  /** How many deltas to split the text into. Default 2. */
  chunks?: number;
  /** Usage on the DONE update. Default: derived from the text length. `null` omits usage. */
  usage?: ScenarioUsage | null;
  /** Repeat the DONE update this many extra times (agy sometimes repeats it; usage must count once). */
  duplicateDone?: number;
  /**
   * The model call fails. No real agy writes an `agent_response` in state ERROR, so this maps to the nearest
   * captured shape: no `agent_response` at all, a DONE `error_message` step (no usage) instead, and the turn ends at once with `result` ERROR `the model returned an error` (the
   * process stays up). `end.error` replaces the message.
   */
  error?: boolean;
  /** Delay between deltas, in ms. Default 0. */
  delayMs?: number;
}

/**
 * Whether agy's text-less model step comes first: every captured tool call follows a DONE `agent_response`
 * with `duration_seconds` and `usage` but no `text_delta` (the model call that chose the tool). Default
 * `true`; `false` puts this tool call in the same model call as the previous one; an object gives that model
 * step's usage (default: derived from the prompt length).
 */
export type ModelStepOption =
  | boolean
  | {
      /** The model step's usage. Default: derived from the prompt length. */
      usage?: ScenarioUsage;
    };

/**
 * Run a tool step: a text-less model step (see {@link ModelStepOption}), then the tool step ACTIVE, then DONE
 * (or ERROR) with `duration_seconds`. PreToolUse hooks matching `name` run between the two (a denial ends the
 * step in ERROR with `TOOL_ERROR` "tool call denied by pre-tool hook: …" and the tool never "runs"; an `overwrite` changes the parameters the final
 * update shows), and PostToolUse hooks after it.
 */
export interface ToolAction {
  /** The model step before the call. Default `true`. */
  modelStep?: ModelStepOption;
  /** The tool call. */
  tool: {
    /** agy's tool name, e.g. `run_command`, `view_file`. */
    name: string;
    /** Parameters with agy's PascalCase keys, e.g. `{ "CommandLine": "ls" }`. */
    parameters?: Record<string, unknown>;
    /** The tool output on DONE. */
    output?: unknown;
    /** A tool failure: the step ends in ERROR with `tool_info.error`. */
    error?: {
      /** `tool_info.error.type`, e.g. `TOOL_ERROR`. */
      type?: string;
      /** `tool_info.error.message`. */
      message?: string;
    };
    /** Stop after the ACTIVE update: no DONE ever comes (a tool cut off by an interrupt). */
    hang?: boolean;
  };
}

/**
 * Call a tool of a configured MCP server through agy's built-in `call_mcp_tool`: one tool step with parameters
 * `{ServerName, ToolName, Arguments}`, ACTIVE then DONE with `output` (the result's text content joined with
 * `\n`, or the JSON of `structuredContent` when there is no text), or ERROR with `tool_info.error`
 * `{type: "TOOL_ERROR", message}` when the server or tool is unknown, the tool is in `disabledTools`, the call
 * fails or the result has `isError`. PreToolUse/PostToolUse hooks apply, matched against `call_mcp_tool`.
 */
export interface McpToolAction {
  /** The model step before the call. Default `true`. */
  modelStep?: ModelStepOption;
  /** The MCP call. */
  mcpTool: {
    /** The server: its full name (`<plugin>_<server>` for a plugin's), or a plugin server's name without the prefix. */
    server: string;
    /** The tool's name on that server. */
    tool: string;
    /** The tool's arguments. Default `{}`. */
    arguments?: Record<string, unknown>;
    /**
     * Assert the outcome: `true` the call must fail, `false` it must succeed, a string it must fail with a
     * message containing it. A mismatch ends the turn at once with a `result` ERROR (`simulator: expected …`).
     */
    expectError?: boolean | string;
  };
}

/**
 * Soft-deny an action, as headless agy does: after the model step, the tool step goes ACTIVE and then ends the
 * way the imitated build ends it — 1.2.17+ `DONE` with `duration_seconds` and no output
 * (agy-real/joiomi-playbook-plugin-agy-1.3.1/denied-command.stdout), 1.2.7 `ERROR` with `tool_info.error`
 * `{type: "TOOL_ERROR", message: "permission check failed for <action> \"<target>\": user denied permission
 * for <action>(<target>)\n…"}` (agy-real/jdiazromeral-agy-plugin-cc/denied_actions-2026-09-20-run1.ndjson) —
 * and `denied_actions` grows. Both captured runs end the turn right there, so the rest of the turn's actions
 * are skipped and the `result` is SUCCESS with an empty response. No hooks run for it.
 */
export interface DenyAction {
  /** The model step before the call. Default `true`. */
  modelStep?: ModelStepOption;
  /** The denied action. */
  deny: {
    /** The permission, e.g. `command`, `write_file`. */
    action: string;
    /** `denied_actions[].display_name`. Default: the tool name in PascalCase (`run_command` → `RunCommand`). */
    display_name?: string;
    /** The tool step's `tool_name`. Default: the action name. */
    tool?: string;
    /** The tool step's `tool_info.parameters`. Default `{}`. */
    parameters?: Record<string, unknown>;
    /** The denied target in the 1.2.7 message. Default: the first string parameter, else `""`. */
    target?: string;
    /** Override the version's form: `done` (1.2.17+) or `error` (1.2.7). */
    form?: 'done' | 'error';
  };
}

/**
 * Emit a DONE `system_message` step. Real system messages carry no text on the wire
 * (agy-real/jdiazromeral-agy-plugin-cc/resume-2026-08-02-run1.ndjson), so the string is not written; it only
 * documents the scenario.
 */
export interface SystemMessageAction {
  /** Documents the scenario only: never written to the wire. */
  systemMessage: string;
}

/**
 * Emit a DONE `checkpoint` step with `duration_seconds` and usage (agy 1.1.x writes one at the end of each
 * turn, and sometimes mid-turn: agy-real/jdiazromeral-agy-plugin-cc/adversarial_review-2026-07-30-run1.ndjson).
 * Its usage counts into `result.usage`. `true` uses the default usage (100 in, 4 out).
 */
export interface CheckpointAction {
  /** `true`, or the checkpoint's usage. */
  checkpoint:
    | true
    | {
        /** The checkpoint step's usage. Default 100 in, 4 out. */
        usage?: ScenarioUsage;
      };
}

/**
 * Emit a DONE `unknown` step with `duration_seconds` and nothing else: the notice agy 1.1.9 writes when it
 * falls back (unknown `--conversation` or `--agent`; agy-real/jdiazromeral-agy-plugin-cc/resume_fallback-…).
 * The simulator writes those notices itself; this action places one anywhere.
 */
export interface UnknownStepAction {
  /** Always `true`. */
  unknownStep: true;
}

/**
 * Transient rate limiting: `retries` DONE `error_message` steps (no other fields, as in
 * agy-real/joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.stdout), one per failed API call agy retried.
 * The turn then goes on with the next action (recovered) or ends as `end` says. Default 7 retries.
 */
export interface RateLimitAction {
  /** The rate limiting. */
  rateLimit: {
    /** How many `error_message` steps (retried API calls). Default 7. */
    retries?: number;
  };
}

/**
 * A subagent run, in the shape agy 1.3.1 writes it (agy-real/littlebearapps-untether-agy-1.3.1/subagent.script):
 * a text-less model step, then a `subagent` step (`tool_name: "invoke_subagent"`, no `tool_info`) going ACTIVE
 * with `subagent_info.subagents[{type_name, role, initial_prompt}]` and DONE with `duration_seconds` and the
 * same entry plus `conversation_id`, `log_uri`, `workspace_uris`. The subagent's own steps are not written (they
 * live in its own transcript) and its usage is not in the parent's `result.usage`. The parent then writes its
 * `waiting` text step, a DONE `system_message` with `duration_seconds` (the subagent's reply arriving) and its
 * `answer` step; the turn's `response` is the two texts joined, as agy joins them.
 *
 * `stream: true` writes the reference's shape instead (docs/reference/stream-json.md#subagents; no captured
 * build writes it): the `subagent` step with `tool_info.parameters {Name, Prompt}`, the subagent's `actions`
 * streamed under its own `conversation_id` (a bare DONE `user_input` first; the prompt is in the
 * `subagent_info` entry, where 1.3.1 puts it), then the step DONE with the subagent's last text as
 * `tool_info.output`; the subagent's usage counts into `result.usage`.
 */
export interface SubagentAction {
  /** The model step before the call. Default `true`. */
  modelStep?: ModelStepOption;
  /** The subagent run. */
  subagent: {
    /** The subagent type (`type_name`). Default `general`. */
    name?: string;
    /** The subagent's `role`. Default `subagent`. */
    role?: string;
    /** The prompt the parent gives it (`initial_prompt`). */
    prompt: string;
    /**
     * What the subagent does: `text` and `tool` actions only. Written only with `stream: true`; otherwise the
     * last text is the subagent's reply (the default `answer`).
     */
    actions: (TextAction | ToolAction)[];
    /** Write the reference's streamed shape instead of agy 1.3.1's. Default `false`. */
    stream?: boolean;
    /**
     * The parent's text step while the subagent runs. Default `I have spawned the subagent. Waiting for its
     * response.` (5 deltas, as captured). Not written with `stream: true`.
     */
    waiting?: TextAction;
    /**
     * The parent's answer once the reply arrived. Default: the subagent's reply in one DONE update, ending with
     * a newline (as captured: `SUB SAID banana\n`), so text after it starts on its own line. Not written with
     * `stream: true`.
     */
    answer?: TextAction;
  };
}

/** Emit a step of an arbitrary (possibly unknown) type, to test drift tolerance. */
export interface CustomStepAction {
  /** The step object, written as given. */
  step: Record<string, unknown>;
}

/** Wait, then continue. */
export interface SleepAction {
  /** How long to wait, in ms. */
  sleep: number;
}

/** Stop emitting for good (until a signal arrives): a stall for the watchdog to catch. */
export interface StallAction {
  /** Always `true`. */
  stall: true;
}

/** Write a line to stderr. */
export interface StderrAction {
  /** The line, without its newline. */
  stderr: string;
}

/** Write raw text to stdout verbatim (no newline added): garbage lines, partial lines. */
export interface RawAction {
  /** The text, written as is. */
  raw: string;
}

/** Write raw bytes (base64) to stdout, flushing after each chunk: a UTF-8 character split across writes. */
export interface RawBytesAction {
  /** The chunks, each base64-encoded, written in order. */
  rawBytes: string[];
}

/** Stream one `agent_response` step whose single delta is `bytes` long (a huge line). */
export interface HugeTextAction {
  /** The delta's length, in bytes. */
  hugeText: number;
}

/**
 * Stream one `agent_response` step of `count` deltas, each the wall-clock time it was written
 * (`performance.timeOrigin + performance.now()`, in ms, as text), `intervalMs` apart: a latency probe.
 */
export interface TimestampDeltasAction {
  /** The probe. */
  timestampDeltas: {
    /** How many deltas. */
    count: number;
    /** The time between deltas, in ms. */
    intervalMs?: number;
  };
}

/** Exit now with this code, without a `result` (a crash mid-turn). */
export interface ExitAction {
  /** The exit code. */
  exit: number;
}

/** Kill itself with a signal (a hard crash). */
export interface KillSelfAction {
  /** The signal. */
  killSelf: 'SIGKILL' | 'SIGSEGV' | 'SIGTERM';
}

/** Spawn a long-lived grandchild process and report its pid on stderr as `[agy-sim] child pid <n>`. */
export interface SpawnChildAction {
  /** How to spawn the child. */
  spawnChild: {
    /** Put the child in its own session (setsid), outside agy's process group. */
    detached?: boolean;
    /** Let the child inherit the simulator's stdout/stderr, so the pipes stay open after agy exits. Default false. */
    inheritStdio?: boolean;
  };
}

/** Write an event with an unknown `event` name (forward compatibility). */
export interface UnknownEventAction {
  /** The `event` name to write. */
  unknownEvent: string;
}

/** One scripted action of a turn; which one is told by its key (`text`, `tool`, `sleep`, …). */
export type ScenarioAction =
  | TextAction
  | ToolAction
  | McpToolAction
  | DenyAction
  | SystemMessageAction
  | CheckpointAction
  | UnknownStepAction
  | RateLimitAction
  | SubagentAction
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
  /**
   * Quota exhaustion as agy 1.2.17 reports it (agy-real/joiomi-playbook-plugin-agy-1.2.17/quota-exhausted.*):
   * `retries` DONE `error_message` steps (default 1), then the stderr lines `error: Individual quota reached.
   * Please upgrade your subscription to increase your limits. Resets in 34m13s.` and `AGY_ERROR: {json}`
   * (`short_error` "RESOURCE_EXHAUSTED (code 429): …", `status`, `error_code` 429, `code_kind`, `retryable`,
   * `error_id`), then `result` ERROR with that message and the usage spent so far, then exit 3.
   */
  quota?:
    | boolean
    | {
        /** How many `error_message` steps come first. Default 1. */
        retries?: number;
      };
  /**
   * The print timeout as the imitated build reports it. 1.2.17+ (agy-real/joiomi-playbook-plugin-agy-1.3.1/
   * print-timeout.stdout): `result` SUCCESS, empty response, all-zero usage, exit 0, and the stderr line
   * `[agy] print timeout after <dur> with turn in progress; returning partial output` written `after` the
   * `result` (default), `before` it, or not at all (`none`). 1.1.x (agy-real/jdiazromeral-agy-plugin-cc/
   * error_result-2026-08-02-run1.ndjson): `result` ERROR `timeout waiting for response`, all-zero usage,
   * exit 1, no stderr line. The captured runs had no model step: script no model actions for the real shape.
   */
  printTimeout?:
    | boolean
    | {
        /** Where the 1.2.17+ stderr line goes, relative to the `result`. Default `after`. */
        stderr?: 'before' | 'after' | 'none';
      };
  /** Exit with this code right after the `result` (e.g. 1 for an error turn). */
  exitAfter?: number;
  /** Write no `result` line and exit 0: a cut stream (antigravity-cli #902/#947). */
  noResult?: boolean;
}

/** One scripted turn. Turns are consumed in order across the conversation, restarts included. */
export interface ScenarioTurn {
  /** If set, the prompt must contain this text; otherwise the turn fails with a result ERROR. */
  expectPrompt?: string;
  /** What the turn does, in order. */
  actions: ScenarioAction[];
  /** How the turn ends. Default: a SUCCESS `result`. */
  end?: ScenarioTurnEnd;
}

/** Launch behaviour, before any input. */
export interface ScenarioStartup {
  /** Delay before `init`, in ms. */
  delayMs?: number;
  /**
   * Fail sign-in as agy 1.3.2 signed out does (agy-real/littlebearapps-untether-agy-1.3.1/unauth.script): stderr
   * `Error: authentication required. Run 'agy' to log in, then retry.`, a lone `result` ERROR "authentication
   * failed or timed out", stderr `error: authentication failed or timed out`, exit 1.
   */
  authFail?: boolean;
  /** Exit before `init` with this code (and optional stderr). */
  exitBeforeInit?: {
    /** The exit code. */
    code: number;
    /** Written to stderr before exiting. */
    stderr?: string;
  };
  /** Never write `init`. */
  noInit?: boolean;
}

/** How SIGINT during a turn is reported. */
export interface ScenarioInterrupt {
  /**
   * `ERROR` (default: error `interrupted` on 1.2+, `context canceled` on 1.1.x, as the captures show) or the
   * reference's `INTERRUPTED`.
   */
  status?: 'INTERRUPTED' | 'ERROR';
  /** Exit code after the interrupted `result`. Default 1 (agy 1.3.1). */
  exitCode?: number;
  /** Ignore SIGINT entirely (a wedged agy), so only SIGTERM/SIGKILL end it. */
  ignore?: boolean;
}

/** A simulator script: how agy starts, how each turn goes, and how interrupts are reported. */
export interface Scenario {
  /**
   * The agy build to imitate (and what `agy --version` prints): `1.1.x` shapes (checkpoint steps, 56 tools,
   * ERROR print timeouts), `1.2.7` (ERROR denials, 57 tools) or `1.2.17`/`1.3.1` (the default: DONE denials,
   * SUCCESS print timeouts, 60 tools), `1.3.3` and later (as 1.3.1, but hook commands split on spaces without
   * a shell and the 1.3.3 PreToolUse answers, from a description: `profile.ts`). Default: `$AGY_SIM_VERSION`,
   * else `1.3.1`.
   */
  version?: string;
  /** Launch behaviour, before any input. Default: a normal start. */
  startup?: ScenarioStartup;
  /** How SIGINT during a turn is reported. */
  interrupt?: ScenarioInterrupt;
  /** The scripted turns, in order. Default: none (see `afterTurns`). */
  turns?: ScenarioTurn[];
  /** What to do once `turns` run out: `echo` (default) replies with the prompt, `error` fails the turn. */
  afterTurns?: 'echo' | 'error';
}
