/**
 * `agy-sdk/ag-ui`: an AG-UI endpoint for an agy agent. `await createAgUiHandler({ agent })` is a `node:http`
 * handler: one agy turn per AG-UI run on the thread's conversation, streamed as AG-UI events; approvals as
 * AG-UI interrupts. `@ag-ui/core` and `@ag-ui/encoder` are optional peers, loaded when a handler is created.
 * See docs/guides/ag-ui.md.
 */

export { APPROVAL_REASON, APPROVAL_SCHEMA, agUiApproval } from './approval.js';
export { type AgUiHandler, type AgUiHandlerOptions, createAgUiHandler } from './handler.js';
export { AG_UI_INSTALL, AG_UI_PEERS } from './peers.js';
export { RUN_ERROR_STATUSES } from './turn-events.js';
