/**
 * `createAgUiHandler`: an AG-UI endpoint as a `node:http` request handler. Each POST is one AG-UI run
 * (`RunAgentInput`, checked with `@ag-ui/core`'s schema): a new turn with the thread's last user message, or,
 * with `resume`, the rest of a turn paused on approvals. Events go out as server-sent events through
 * `@ag-ui/encoder`. See docs/guides/ag-ui.md.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { BaseEvent, RunAgentInput } from '@ag-ui/core';
import { Agent, type AgentConfig, type ContentPart } from '../index.js';
import { type AgUiPeers, loadAgUiPeers } from './peers.js';
import { AgUiThread, RunRefused, type RunSink } from './thread.js';

/** Options of {@link createAgUiHandler}. */
export interface AgUiHandlerOptions {
  /**
   * The agent every thread runs: an `AgentConfig`, validated now (`ConfigError` naming the field). Its
   * `askUser` policies whose handler is `agUiApproval` ask the AG-UI client; without `policies`, `run_command`
   * is asked that way. `conversationId` is set per thread by the handler.
   */
  agent: AgentConfig;
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** How many threads are remembered (their agy conversation ids); the oldest idle one is forgotten. Default 1,000. */
  maxThreads?: number;
}

/** A `node:http` request handler for AG-UI runs, with `close()`. */
export interface AgUiHandler {
  /** Handles one request: `POST` with a `RunAgentInput` body (or an already parsed `req.body`). */
  (req: IncomingMessage, res: ServerResponse): void;
  /** Ends every run and paused turn: their agy processes exit, pending approvals are denied. Idempotent. */
  close(): Promise<void>;
}

const DEFAULT_MAX_BODY = 1024 * 1024;

/** Reads the body (bounded), or takes what a framework (Express's `json()`) already parsed. */
async function readBody(req: IncomingMessage, max: number): Promise<unknown> {
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (parsed !== undefined && typeof parsed === 'object' && !Buffer.isBuffer(parsed)) return parsed;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) throw new RunRefused(413, `the request body is larger than ${max} bytes`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new RunRefused(400, `the request body is not JSON: ${(error as Error).message}`);
  }
}

/** The new turn's prompt: the text of the run's last message, which must be the user's new message. */
function promptOf(input: RunAgentInput): ContentPart[] {
  const last = input.messages.at(-1);
  // A run whose last message is not the user's (e.g. a front-end tool result) has no new prompt for agy:
  // re-sending an older user message would run it twice.
  if (last?.role !== 'user') throw new RunRefused(400, 'messages: a new run must end with a user message');
  const { content } = last as { content: unknown };
  if (typeof content === 'string') return content.trim() ? [content] : refuseEmpty();
  const parts = Array.isArray(content) ? content : [];
  const texts: string[] = [];
  for (const [i, part] of parts.entries()) {
    if ((part as { type?: unknown }).type !== 'text')
      throw new RunRefused(
        400,
        `messages: content[${i}] is ${String((part as { type?: unknown }).type)}; only text parts are taken`,
      );
    texts.push(String((part as { text?: unknown }).text ?? ''));
  }
  const text = texts.join('\n');
  return text.trim() ? [text] : refuseEmpty();
}

function refuseEmpty(): never {
  throw new RunRefused(400, 'messages: the last user message is empty');
}

/**
 * An AG-UI endpoint for an agy agent. Loads `@ag-ui/core` and `@ag-ui/encoder` (a `MissingPeerError` names
 * the install command when one is missing) and validates `options.agent`; mount the result on a POST route.
 */
export async function createAgUiHandler(options: AgUiHandlerOptions): Promise<AgUiHandler> {
  const peers = await loadAgUiPeers();
  const config = { ...options.agent };
  void new Agent(config); // the Agent's own validation: a bad field is a ConfigError now, not on the first run
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const maxThreads = options.maxThreads ?? 1000;
  const threads = new Map<string, AgUiThread>();
  let closed = false;

  const threadOf = (id: string): AgUiThread => {
    let thread = threads.get(id);
    if (!thread) {
      thread = new AgUiThread(peers, config);
      threads.set(id, thread);
      for (const [old, t] of threads) {
        if (threads.size <= maxThreads) break;
        if (!t.busy) threads.delete(old);
      }
    }
    return thread;
  };

  const run = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (closed) throw new RunRefused(503, 'the AG-UI handler is closed');
    if (req.method !== 'POST') throw new RunRefused(405, 'AG-UI runs are POST requests');
    const parsed = peers.RunAgentInputSchema.safeParse(await readBody(req, maxBody));
    if (!parsed.success) throw new RunRefused(400, `not a RunAgentInput: ${parsed.error.message}`);
    const input = parsed.data as RunAgentInput;
    const thread = threadOf(input.threadId);
    const sink = sseSink(peers, input, res);
    res.on('close', () => thread.detach(sink));
    if (input.resume && input.resume.length > 0) thread.resume(input.resume, sink);
    else await thread.start(promptOf(input), sink);
  };

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    run(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.end();
        return;
      }
      const status = error instanceof RunRefused ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: message }));
    });
  };
  return Object.assign(handler, {
    close: async (): Promise<void> => {
      closed = true;
      await Promise.all([...threads.values()].map((t) => t.close()));
    },
  });
}

/** A run's response as server-sent events; headers go out with the first event (a refusal can still be a 4xx). */
function sseSink(peers: AgUiPeers, input: RunAgentInput, res: ServerResponse): RunSink {
  const encoder = new peers.EventEncoder();
  return {
    threadId: input.threadId,
    runId: input.runId,
    write(event: BaseEvent): void {
      if (res.writableEnded || res.destroyed) return;
      if (!res.headersSent)
        res.writeHead(200, {
          'content-type': encoder.getContentType(),
          'cache-control': 'no-cache',
          'x-accel-buffering': 'no',
        });
      res.write(encoder.encode({ timestamp: Date.now(), ...event }));
    },
    end(): void {
      if (!res.writableEnded) res.end();
    },
  };
}
