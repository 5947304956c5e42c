/**
 * agy's version for one connection: checked before the first start when a flag only some builds accept is passed
 * (`flag-support.ts`), otherwise probed after `init`, off the start's critical path (cached per binary).
 */
import type { Logger } from '../../../logger.js';
import { cachedAgyVersion, probeAgyVersion } from './binary.js';
import { checkFlagSupport, gatedFlags } from './flag-support.js';
import type { AgyProcessOptions } from './process-options.js';

/** The version gate and probe of one connection. */
export class AgyVersion {
  /** Stops waiting for the probe on close (the probe is killed once no connection waits for it). */
  readonly #abort = new AbortController();
  /** The version once known: the cached answer, or the probe started after the first `init`. */
  #version: Promise<string | null> | undefined;
  readonly #opts: AgyProcessOptions;

  constructor(opts: AgyProcessOptions) {
    this.#opts = opts;
  }

  /** True once the probe was abandoned because the connection is closing. */
  get abandoned(): boolean {
    return this.#abort.signal.aborted;
  }

  /** The version once the probe answered; null when it failed, timed out or was abandoned, or before `start`. */
  probed(): Promise<string | null> {
    return this.#version ?? Promise.resolve(null);
  }

  /**
   * Checks the gated flags against the version before agy first runs: only then is the probe on the start's
   * critical path (one `agy --version`, cached per binary).
   */
  async checkGatedFlags(binary: string, env: NodeJS.ProcessEnv, logger: Logger): Promise<void> {
    const flags = gatedFlags(this.#opts);
    if (flags.length === 0) return;
    const cached = cachedAgyVersion(binary, env);
    const version = cached !== undefined ? cached : await this.#probe(binary, env);
    checkFlagSupport(flags, version, (f) =>
      logger.warn(
        `agy's version is unknown: ${f.flag} is passed unchecked (agy refuses a flag it does not know)`,
      ),
    );
  }

  /**
   * After the first `init`: a known answer (every start but the first per binary) is there at once, and
   * `onVersion` is called now; otherwise it is called when the probe answers.
   */
  begin(binary: string, env: NodeJS.ProcessEnv, onVersion: (version: string | null) => void): void {
    const known = cachedAgyVersion(binary, env);
    if (known !== undefined) {
      this.#version = Promise.resolve(known);
      onVersion(known);
      return;
    }
    this.#version = this.#probe(binary, env).then((version) => {
      onVersion(version);
      return version;
    });
  }

  /**
   * Stops waiting: a probe this connection was the last to wait for is killed, unless `keep` (a cassette is
   * recorded: it names agy's version, so a probe in flight finishes within its own bound).
   */
  abandon(keep: boolean): void {
    if (!keep) this.#abort.abort();
  }

  /** Waits for the probe (its wait never rejects: null on failure), then abandons it for good. */
  async settle(): Promise<void> {
    await this.#version?.catch(() => null);
    this.#abort.abort();
  }

  #probe(binary: string, env: NodeJS.ProcessEnv): Promise<string | null> {
    return probeAgyVersion(binary, env, {
      cwd: this.#opts.cwd,
      timeoutMs: this.#opts.versionProbeTimeoutMs,
      signal: this.#abort.signal,
    });
  }
}
