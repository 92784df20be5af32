/** report.html: self-contained (no external assets), verdicts grouped by the document's sections. */
import type { Report } from './model.ts';
import type { RuleFailure, RuleVerdict } from '../runner/verdicts.ts';

export function htmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const LABEL: Record<RuleVerdict['verdict'], string> = { passed: 'passed', failed: 'failed', skipped: 'skipped', not_exercised: 'not exercised' };

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
header{background:#1d232a;color:#fff;padding:16px 24px}header h1{margin:0 0 4px;font-size:20px}
header .meta{opacity:.8;font-size:13px}main{padding:16px 24px;max-width:1200px}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;white-space:nowrap}
.passed{background:#d6f5dd;color:#14532d}.failed{background:#fde0e0;color:#7f1d1d}.skipped{background:#fff2cc;color:#713f12}
.not_exercised{background:#e5e7eb;color:#374151}.informational{background:#e0e7ff;color:#3730a3}
.verdict-passed{color:#15803d}.verdict-failed{color:#b91c1c}.verdict-error{color:#b45309}
table{border-collapse:collapse;width:100%;background:#fff;margin:8px 0 20px}th,td{border:1px solid #e5e7eb;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f4f6}td.n{text-align:right}section{margin-bottom:24px}h2{font-size:17px;margin:20px 0 6px}
.rule{background:#fff;border:1px solid #e5e7eb;border-radius:6px;margin:6px 0;padding:6px 10px}
.rule .id{font-family:ui-monospace,Menlo,Consolas,monospace;font-weight:600}.rule .stmt{color:#374151}
.reasons{color:#6b7280;font-size:13px}details{margin-top:4px}summary{cursor:pointer}
pre{background:#0f172a;color:#e2e8f0;padding:8px;border-radius:4px;overflow:auto;font-size:12px;white-space:pre-wrap;word-break:break-all}
.matrix td{font-size:12px}.matrix td.c{text-align:center}
`;

function failureHtml(f: RuleFailure): string {
  const parts = [`<div><strong>${htmlEscape(f.title)}</strong></div>`, `<div class="reasons">${htmlEscape(f.message)}</div>`];
  if (f.scenario) parts.push(`<div class="reasons">scenario: ${htmlEscape(`${f.suite ?? ''} › ${f.scenario}`)} (${htmlEscape(f.source)})</div>`);
  if (f.exchange) {
    const e = f.exchange;
    const req = [`${e.method} ${e.url}`, ...Object.entries(e.requestHeaders).map(([k, v]) => `${k}: ${v}`), ...(e.requestBody !== undefined ? ['', JSON.stringify(e.requestBody, null, 2)] : [])].join('\n');
    const resLines = [`→ ${e.status ?? 'no response'}${e.transportError ? ` (${e.transportError})` : ''} in ${e.durationMs} ms`, ...Object.entries(e.responseHeaders).map(([k, v]) => `${k}: ${v}`)];
    if (e.responseBody !== undefined) resLines.push('', JSON.stringify(e.responseBody, null, 2));
    else if (e.rawBody) resLines.push('', e.rawBody);
    if (e.jsonError) resLines.push('', `(${e.jsonError})`);
    parts.push(`<pre>${htmlEscape(req)}</pre><pre>${htmlEscape(resLines.join('\n'))}</pre>`);
  }
  if (f.replay) parts.push(`<div>replay:</div><pre>${htmlEscape(f.replay)}</pre>`);
  if (f.seed !== undefined) parts.push(`<div class="reasons">seed ${f.seed}</div>`);
  if (f.counterexample !== undefined) parts.push(`<pre>${htmlEscape(JSON.stringify(f.counterexample, null, 2))}</pre>`);
  return `<div class="failure">${parts.join('')}</div>`;
}

function ruleHtml(r: RuleVerdict): string {
  const badge = `<span class="badge ${r.verdict}">${LABEL[r.verdict]}</span>${r.informational ? ' <span class="badge informational">informational</span>' : ''}`;
  const head = `${badge} <span class="id">${htmlEscape(r.id)}</span> <span class="stmt">${htmlEscape(r.statement)}</span>`;
  const reasons = r.reasons.length && r.verdict !== 'failed' ? `<div class="reasons">${r.reasons.map(htmlEscape).join('<br>')}</div>` : '';
  const evidence = r.failures.length
    ? `<details${r.informational ? '' : ' open'}><summary>${r.failures.length} failure${r.failures.length > 1 ? 's' : ''}: evidence</summary>${r.failures.map(failureHtml).join('<hr>')}</details>`
    : '';
  return `<div class="rule" id="${htmlEscape(r.id)}">${head}${reasons}${evidence}</div>`;
}

export function renderHtml(report: Report): string {
  const { run, summary: s } = report;
  const sections = new Map<string, RuleVerdict[]>();
  for (const r of report.rules) sections.set(r.section, [...(sections.get(r.section) ?? []), r]);
  const order = (rs: RuleVerdict[]) => [...rs].sort((a, b) => rank(a) - rank(b));
  const familyRows = s.families.map((f) => `<tr><td>${htmlEscape(f.family)}</td><td class="n">${f.passed}</td><td class="n">${f.failed}</td><td class="n">${f.skipped}</td><td class="n">${f.notExercised}</td></tr>`).join('');
  const matrix = report.rules
    .map((r) => `<tr><td><a href="#${htmlEscape(r.id)}">${htmlEscape(r.id)}</a></td><td>${htmlEscape(r.section)}</td><td class="c">${r.verdict === 'not_exercised' ? '—' : '✔'}</td><td class="c">${r.scenarios.length}</td><td class="c">${r.judgements}</td><td><span class="badge ${r.verdict}">${LABEL[r.verdict]}</span></td></tr>`)
    .join('');
  const notes = report.scenarios.flatMap((sc) => sc.notes.map((n) => `${sc.suite} › ${sc.title}: ${n}`));
  const notesHtml = notes.length ? `<details><summary>${notes.length} advisory note${notes.length > 1 ? 's' : ''} (never failures)</summary><ul>${notes.map((n) => `<li>${htmlEscape(n)}</li>`).join('')}</ul></details>` : '';
  const errors = report.errors.length ? `<h2>Run errors</h2><pre>${htmlEscape(report.errors.map((e) => `${e.suite ? `${e.suite}: ` : ''}${e.message}`).join('\n\n'))}</pre>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Conformance report ${htmlEscape(run.id)}</title><style>${CSS}</style></head>
<body><header><h1>Billing and Monetization Service: conformance <span class="verdict-${s.verdict}">${s.verdict}</span></h1>
<div class="meta">${htmlEscape(run.target.baseUrl)}${run.target.bundled ? ' (bundled reference)' : ''} · profile ${run.profile} · seed ${run.seed}${run.shard ? ` · shard ${run.shard.index}/${run.shard.count}` : ''} · ${(run.durationMs / 1000).toFixed(1)} s · ${htmlEscape(run.startedAt)} · run ${htmlEscape(run.id)}</div></header>
<main>
<p><span class="badge failed">${s.rules.failed} failed</span> <span class="badge passed">${s.rules.passed} passed</span> <span class="badge skipped">${s.rules.skipped} skipped</span> <span class="badge not_exercised">${s.rules.notExercised} not exercised</span> of ${s.rules.total} rules · ${s.scenarios.total} scenarios (${s.scenarios.failed} failed, ${s.scenarios.skipped} skipped) · fixtures: ${htmlEscape(run.fixtures.strategy)}</p>
<table><thead><tr><th>Family</th><th>Passed</th><th>Failed</th><th>Skipped</th><th>Not exercised</th></tr></thead><tbody>${familyRows}</tbody></table>
${errors}
${notesHtml}
${[...sections.entries()].map(([section, rules]) => `<section><h2>${htmlEscape(section)}</h2>${order(rules).map(ruleHtml).join('')}</section>`).join('\n')}
<h2>Requirements coverage</h2>
<table class="matrix"><thead><tr><th>Rule</th><th>Section</th><th>Exercised</th><th>Scenarios</th><th>Judgements</th><th>Verdict</th></tr></thead><tbody>${matrix}</tbody></table>
</main></body></html>
`;
}

function rank(r: RuleVerdict): number {
  return { failed: 0, skipped: 1, not_exercised: 2, passed: 3 }[r.verdict];
}
