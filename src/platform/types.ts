/**
 * The operating-system seam: everything the process layer, the hook relays and the simulator's hook runner do
 * that depends on the OS, one method per need. `linux.ts` and `darwin.ts` implement it (their shared POSIX parts
 * are `posix.ts`); `index.ts` picks one by `process.platform`. Another OS is one more implementation of this
 * interface; what Windows would need is in docs/architecture.md ("Platforms").
 */

/** The environment variable carrying a session's marker: every descendant inherits it, so a scan finds them. */
export const MARK_VAR = 'AGY_SDK_SESSION_MARK';

/** A process found for killing, as `[pid, start time]` (the start time tells a reused pid apart). */
export type FoundPair = [pid: number, start: string];

/** A process found for killing; the start time tells it apart from a later process that reuses the pid. */
export interface Found {
  /** Its pid. */
  pid: number;
  /** Its start time as the OS reports it (Linux: `/proc/<pid>/stat` field 22, clock ticks since boot). */
  start: string;
}

/** Who a process is right now: enough to tell it apart from a later process with the same pid. */
export interface ProcessIdentity {
  /** Its parent's pid. */
  ppid: number;
  /** Its start time (compared as an opaque string). */
  start: string;
  /** True for a zombie (exited, not yet reaped): signalling it does nothing. */
  zombie: boolean;
}

/** One process as a scan saw it. */
export interface ProcessEntry {
  /** Its parent's pid. */
  ppid: number;
  /** Its start time (compared as an opaque string). */
  start: string;
  /** The value of {@link MARK_VAR} in its environment, if any (and if the scan read environments). */
  mark: string | undefined;
}

/**
 * What the OS lets the host see of other processes: the basis of the no-orphan guarantee beyond the process
 * group (a descendant that left the group is found by ancestry or by its marker). Where the OS shows nothing
 * (`available: false`), every scan is empty and the process group is the whole story.
 */
export interface ProcessTable {
  /** False where this platform cannot list processes: every scan finds nothing. */
  readonly available: boolean;
  /** `pid`'s parent, start time and state; undefined when it is gone (or cannot be read). */
  identity(pid: number): ProcessIdentity | undefined;
  /**
   * Every live, non-zombie process but init and this one, read in small batches with a yield to the event loop
   * between two. With `marks: false` environments are not read (no `mark`).
   */
  scan(options: { marks: boolean }): Promise<Map<number, ProcessEntry>>;
  /** The same as {@link ProcessTable.scan} with marks, in one synchronous pass (the supervisor's). */
  scanSync(): Map<number, ProcessEntry>;
  /** Whether {@link ProcessTable.walkTree} can walk down one tree without reading every process. */
  canWalkTrees(): boolean;
  /** The live, non-zombie descendants of `root` with their start times; only where {@link canWalkTrees}. */
  walkTree(root: number): Promise<FoundPair[]>;
  /** Every live process holding `<MARK_VAR>=<mark>` in its environment, in one synchronous pass. */
  marked(mark: string): Found[];
}

/** The spawn options that start a child as the leader of a process group of its own. */
export interface NewGroupSpawnOptions {
  /** POSIX: `setsid()` in the child (a new session and group); Windows: a new console. */
  detached: true;
  /** Windows: no console window flashes up. */
  windowsHide: true;
}

/**
 * How a hook command posts its stdin to the session listener: `curl`; `bash` (its `/dev/tcp`, no process but
 * bash itself, for machines without curl); or the Node relay (a Node start per hook, the slowest).
 */
export type HookRelayKind = 'curl' | 'bash' | 'node';

/** What one hook relay script must do: post stdin to `url`, print the answer, or `fallback` on any failure. */
export interface RelayScriptSpec {
  /** The listener's URL for this hook (it carries the session token: written only to private files). */
  url: string;
  /** The listener's own timeout, in ms; the relay waits a second longer. */
  timeoutMs: number;
  /** Which relay posts the request. */
  relay: HookRelayKind;
  /** curl's absolute path, when `relay` is `curl`. */
  curlPath?: string | undefined;
  /** bash's absolute path (from {@link Platform.findRelayTool}), when `relay` is `bash`. */
  bashPath?: string | undefined;
  /** What the script prints when the relay fails (never an empty answer). */
  fallback: string;
  /**
   * A file whose absence answers at once with `{}` (stdin drained, no relay call); only for events whose `{}`
   * answer changes nothing.
   */
  gate?: string | undefined;
}

/** How a relay script gets its private files and the Node relay's command. */
export interface RelayFiles {
  /** Queues a private (0600) config file `<event>.<suffix>` beside the script; returns its absolute path. */
  privateFile(suffix: string, content: string): string;
  /** Queues the Node relay's own config and returns its argv (Node binary, relay script, config). */
  nodeRelay(): string[];
}

/** One relay script to write, executable (0700), named `<event>.<extension>`. */
export interface RelayScript {
  /** The file name extension this platform's hook runner needs (`sh` on POSIX). */
  extension: string;
  /** The script's whole text. */
  content: string;
}

/** Everything the SDK does that depends on the operating system. */
export interface Platform {
  /** The `process.platform` this implementation serves. */
  readonly name: NodeJS.Platform;

  /** Options for `child_process.spawn` that start the child in a process group of its own. */
  newGroupSpawnOptions(): NewGroupSpawnOptions;
  /** Sends `signal` to one process; false when it is gone already (ESRCH) or not ours to signal. */
  signalProcess(pid: number, signal: NodeJS.Signals): boolean;
  /** Sends `signal` to the process group `pid` leads; false when it is gone already or not ours. */
  signalGroup(pid: number, signal: NodeJS.Signals): boolean;
  /**
   * The program and arguments of the host supervisor's waiter (`host-supervisor.ts`): a cheap process that
   * blocks until fd 4 (the wake pipe) reads a line or EOF, then execs `command` in its own place (same pid, same
   * pipes), with SIGINT and SIGHUP ignored through the exec. Undefined where there is none: the supervisor
   * (`command`) is then started at once.
   */
  supervisorWaiter(command: readonly string[]): [string, string[]] | undefined;
  /** What this OS shows of other processes (orphan and descendant detection). */
  readonly processes: ProcessTable;

  /**
   * The program and arguments with which agy runs a hook `command` as a command line (the simulator imitates
   * it): `/bin/sh -c` on POSIX.
   */
  hookShellArgv(command: string): [string, string[]];
  /** Whether `value` is one word both for agy's hook shell and for a split on whitespace without a shell. */
  isPlainWord(value: string): boolean;
  /** One word of the hook shell's syntax that expands to exactly `value`. */
  quote(value: string): string;
  /** A command line from words, each quoted with {@link Platform.quote}. */
  commandLine(words: readonly string[]): string;
  /** The command line agy runs for a hook whose relay script is at `scriptPath`. */
  hookCommand(scriptPath: string): string;
  /** The text of one hook relay script (see {@link RelayScriptSpec}); its config files go through `files`. */
  relayScript(spec: RelayScriptSpec, files: RelayFiles): RelayScript;
  /**
   * `tool`'s absolute path on `env`'s PATH when a relay script of this platform can run it, else undefined.
   */
  findRelayTool(tool: 'curl' | 'bash', env: NodeJS.ProcessEnv): string | undefined;
  /** A per-user directory under the system's temporary directory, for files whose path must be plain. */
  privateTempRoot(): string;
}
