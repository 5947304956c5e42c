/**
 * One self-contained HTML page for a run (`agy-sdk show`): inline CSS, no script, no external resource, so it
 * opens offline and can be attached to a bug report. A timeline of turns and their steps: text, thoughts,
 * tool calls with arguments and output, denials with the deciding policy or hook, notices, subagents; usage,
 * cost and duration per step and per turn; each turn's status. Long values fold (`<details>`).
 */
import type { Usage } from '../../model/step.js';
import type { Timeline, TimelineStep, TimelineTurn } from './timeline.js';

/** Values longer than this fold. */
const FOLD_CHARS = 400;

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function show(value: unknown): string {
  if (value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

function block(label: string, value: unknown, cls: string): string {
  const text = show(value);
  if (text === '') return '';
  const pre = `<pre class="${cls}">${esc(text)}</pre>`;
  if (text.length <= FOLD_CHARS)
    return `<div class="field"><span class="label">${esc(label)}</span>${pre}</div>`;
  return `<details class="field fold"><summary><span class="label">${esc(label)}</span> ${text.length.toLocaleString('en')} characters</summary>${pre}</details>`;
}

function usageText(u: Usage | null | undefined, cost: number | null | undefined): string {
  if (!u) return '';
  const parts = [`in ${u.inputTokens}`, `out ${u.outputTokens}`];
  if (u.thinkingTokens) parts.push(`thinking ${u.thinkingTokens}`);
  if (u.cacheReadTokens) parts.push(`cache ${u.cacheReadTokens}`);
  const price = cost === null || cost === undefined ? 'cost unknown' : `$${cost.toFixed(6)}`;
  return `${parts.join(' · ')} · ${price}`;
}

function ms(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${Math.round(n)} ms`;
}

function stepHtml(s: TimelineStep, turnStart: number): string {
  const kind = s.denial ? 'denied' : s.tool ? 'tool' : s.type === 'agent_response' ? 'text' : 'notice';
  const title = s.tool ? `${s.tool.mcpServer ? `${s.tool.mcpServer} / ` : ''}${s.tool.name}` : s.type;
  const meta = [
    `+${ms(s.t - turnStart)}`,
    s.durationSeconds !== undefined ? `took ${s.durationSeconds.toFixed(3)} s` : '',
    usageText(s.usage, s.costUsd),
  ].filter(Boolean);
  return [
    `<li class="step ${kind} state-${esc(s.state.toLowerCase())}" data-step-index="${s.index}" data-kind="${kind}">`,
    `<div class="step-head"><span class="badge">${esc(kind)}</span><span class="title">${esc(title)}</span>`,
    `<span class="state">${esc(s.state)}</span><span class="meta">${esc(meta.join(' · '))}</span></div>`,
    s.subagent ? `<div class="subagent">subagent ${esc(s.subagent)}</div>` : '',
    s.denial
      ? `<div class="denial"><strong>denied by ${esc(s.denial.by)}</strong>: ${esc(s.denial.reason)}</div>`
      : '',
    s.text ? block('text', s.text, 'text') : '',
    s.thoughts ? block('thoughts', s.thoughts, 'thoughts') : '',
    s.tool ? block('arguments', s.tool.args, 'args') : '',
    s.tool && s.tool.output !== undefined ? block('output', s.tool.output, 'output') : '',
    s.tool?.error ? block('error', s.tool.error, 'error') : '',
    '</li>',
  ].join('');
}

function turnHtml(turn: TimelineTurn, n: number): string {
  const meta = [
    `${ms(turn.endT - turn.startT)} wall`,
    turn.agyDurationSeconds !== undefined ? `agy ${turn.agyDurationSeconds.toFixed(3)} s` : '',
    usageText(turn.usage, turn.costUsd),
    `${turn.steps.length} steps`,
  ].filter(Boolean);
  return [
    `<section class="turn status-${esc(turn.status)}" data-status="${esc(turn.status)}">`,
    `<h2><span class="status">${esc(turn.status)}</span> Turn ${n}: <span class="prompt">${esc(turn.prompt.slice(0, 200))}</span></h2>`,
    `<div class="turn-meta">${esc(meta.join(' · '))}</div>`,
    turn.message ? `<div class="message">${esc(turn.message)}</div>` : '',
    `<ol class="steps">${turn.steps.map((s) => stepHtml(s, turn.startT)).join('\n')}</ol>`,
    turn.stderr.length ? block('stderr', turn.stderr.join('\n'), 'stderr') : '',
    '</section>',
  ].join('\n');
}

const CSS = `
:root{color-scheme:light dark;--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--muted:#6e7781;--line:#d0d7de}
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0 auto;max-width:1100px;padding:16px}
header{border-bottom:1px solid var(--line);margin-bottom:12px}
h1{font-size:20px;margin:4px 0}h2{font-size:16px;margin:0 0 4px}
.turn{border:1px solid var(--line);border-left:6px solid var(--muted);border-radius:6px;padding:10px;margin:12px 0}
.turn.status-success{border-left-color:var(--ok)}.turn.status-denied,.turn.status-error,.turn.status-timeout,.turn.status-quota_exhausted,.turn.status-rate_limited,.turn.status-auth_failed{border-left-color:var(--bad)}
.turn.status-interrupted,.turn.status-canceled{border-left-color:var(--warn)}
.status{display:inline-block;padding:0 6px;border-radius:4px;background:var(--muted);color:#fff;font-size:12px;text-transform:uppercase}
.status-success .status{background:var(--ok)}.status-denied .status,.status-error .status{background:var(--bad)}
.turn-meta,.meta{color:var(--muted);font-size:12px}.message{color:var(--bad);margin:4px 0}
.steps{list-style:none;padding:0;margin:8px 0 0;border-left:2px solid var(--line)}
.step{margin:0 0 8px 10px;padding:4px 8px;border-radius:4px;position:relative}
.step:before{content:"";position:absolute;left:-16px;top:10px;width:10px;height:10px;border-radius:50%;background:var(--muted)}
.step.tool:before{background:#0969da}.step.text:before{background:var(--ok)}.step.denied:before{background:var(--bad)}.step.notice:before{background:var(--warn)}
.step-head{display:flex;gap:8px;align-items:baseline;flex-wrap:wrap}
.badge{font-size:11px;text-transform:uppercase;color:var(--muted)}.title{font-weight:600}.state{font-size:12px}
.denial{color:var(--bad);margin:2px 0}.subagent{font-size:12px;color:var(--warn)}
.field{margin:2px 0}.label{font-size:11px;color:var(--muted);margin-right:6px}
pre{white-space:pre-wrap;word-break:break-word;margin:2px 0;padding:4px 6px;border-radius:4px;background:rgba(127,127,127,.1);max-height:none}
`;

/** The page for a timeline. */
export function timelineHtml(timeline: Timeline, title = 'agy-sdk run'): string {
  const procs = timeline.processes
    .map((p) => `start +${ms(p.t)}${p.exit ? `, exit ${p.exit.signal ?? p.exit.code}` : ''}`)
    .join('; ');
  const head = [
    `agy ${timeline.agyVersion ?? '(version unknown)'}`,
    timeline.model ? `model ${timeline.model}` : '',
    `${timeline.turns.length} turn(s)`,
    procs,
    timeline.source ? `from ${timeline.source}` : '',
  ].filter(Boolean);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${CSS}</style></head>
<body><header><h1>${esc(title)}</h1><div class="meta">${esc(head.join(' · '))}</div></header>
<main id="timeline">
${timeline.turns.map((t, i) => turnHtml(t, i + 1)).join('\n')}
</main></body></html>
`;
}
