import { type Mock, vi } from 'vitest';
import type { Logger } from '../../src/logger.js';

type LogFn = (message: string, ...details: unknown[]) => void;

/** A logger whose levels are spies. */
export function spyLogger(): { [K in keyof Logger]: Mock<LogFn> } {
  return { debug: vi.fn<LogFn>(), info: vi.fn<LogFn>(), warn: vi.fn<LogFn>(), error: vi.fn<LogFn>() };
}
