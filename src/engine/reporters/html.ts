/** report.html: self-contained (no external assets), verdicts grouped by the document's sections. */
import { CATEGORY_LABEL, unjudgedGroups, type Report } from './model.ts';
import { narrative } from './narrative.ts';
import type { RuleFailure, RuleVerdict } from './verdicts.ts';

export function htmlEscape(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const LABEL: Record<RuleVerdict['verdict'], string> = {
  passed: 'passed',
  failed: 'failed',
  expected_failure: 'failed as expected',
  not_judged: 'not judged',
  engine_error: 'engine error',
};

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d232a;background:#f6f7f9}
header{background:#1d232a;color:#fff;padding:16px 24px}header h1{margin:0 0 4px;font-size:20px}
header .meta{opacity:.8;font-size:13px}main{padding:16px 24px;max-width:1200px}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;white-space:nowrap}
.passed{background:#d6f5dd;color:#14532d}.failed{background:#fde0e0;color:#7f1d1d}.not_judged{background:#fff2cc;color:#713f12}
.engine_error{background:#ffedd5;color:#9a3412}.expected_failure{background:#f3e8ff;color:#6b21a8}.tool{background:#e0e7ff;color:#3730a3}
.verdict-passed{color:#86efac}.verdict-failed{color:#fca5a5}.verdict-error,.verdict-unjudged{color:#fcd34d}
table{border-collapse:collapse;width:100%;background:#fff;margin:8px 0 20px}
th,td{border:1px solid #e5e7eb;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f3f4f6}td.n{text-align:right}td.hot{background:#fde0e0;color:#7f1d1d;font-weight:700}
#failed-rules{background:#fff;border:2px solid #fca5a5;border-radius:6px;padding:8px 16px;margin:12px 0}
#failed-rules h2{margin-top:4px;color:#7f1d1d}
#failed-rules li{margin:2px 0}section{margin-bottom:24px}h2{font-size:17px;margin:20px 0 6px}
.rule{background:#fff;border:1px solid #e5e7eb;border-radius:6px;margin:6px 0;padding:6px 10px}
.rule .id{font-family:ui-monospace,Menlo,Consolas,monospace;font-weight:600}.rule .stmt{color:#374151}
.rule ul.parts{margin:4px 0 0 18px;padding:0;font-size:13px}.rule ul.parts li{margin:2px 0}
.reasons{color:#6b7280;font-size:13px}details{margin-top:4px}summary{cursor:pointer}
pre{background:#0f172a;color:#e2e8f0;padding:8px;border-radius:4px;overflow:auto;font-size:12px;white-space:pre-wrap;word-break:break-all}
.matrix td{font-size:12px}.matrix td.c{text-align:center}
`;

function failureHtml(f: RuleFailure): string {
  const parts = [
    `<div><strong>${htmlEscape(f.title)}</strong></div>`,
    `<div class="reasons">${htmlEscape(f.message)}</div>`,
  ];
  if (f.scenario)
    parts.push(
      `<div class="reasons">scenario: ${htmlEscape(`${f.suite ?? ''} › ${f.scenario}`)} (${htmlEscape(f.source)})</div>`,
    );
  if (f.exchange) {
    const e = f.exchange;
    const req = [
      `${e.method} ${e.url}`,
      ...Object.entries(e.requestHeaders).map(([k, v]) => `${k}: ${v}`),
      ...(e.requestBody !== undefined ? ['', JSON.stringify(e.requestBody, null, 2)] : []),
    ].join('\n');
    const resLines = [
      `→ ${e.status ?? 'no response'}${e.transportError ? ` (${e.transportError})` : ''} in ${e.durationMs} ms`,
      ...Object.entries(e.responseHeaders).map(([k, v]) => `${k}: ${v}`),
    ];
    if (e.responseBody !== undefined) resLines.push('', JSON.stringify(e.responseBody, null, 2));
    else if (e.rawBody) resLines.push('', e.rawBody);
    if (e.jsonError) resLines.push('', `(${e.jsonError})`);
    parts.push(`<pre>${htmlEscape(req)}</pre><pre>${htmlEscape(resLines.join('\n'))}</pre>`);
  }
  if (f.replaySequence)
    parts.push(
      '<details open><summary>replay the whole sequence (bash; the last request alone does not reproduce it)</summary>' +
        `<pre>${htmlEscape(f.replaySequence)}</pre></details>`,
    );
  else if (f.replay) parts.push(`<div>replay:</div><pre>${htmlEscape(f.replay)}</pre>`);
  if (f.seed !== undefined) parts.push(`<div class="reasons">seed ${f.seed}</div>`);
  if (f.counterexample !== undefined) parts.push(`<pre>${htmlEscape(JSON.stringify(f.counterexample, null, 2))}</pre>`);
  return `<div class="failure">${parts.join('')}</div>`;
}

function engineErrorHtml(r: RuleVerdict): string {
  return r.engineErrors
    .map(
      (e) =>
        `<div><strong>${htmlEscape(e.scenario ?? e.source)}</strong>: ${htmlEscape(e.message)}</div>` +
        (e.stack ? `<pre>${htmlEscape(e.stack)}</pre>` : ''),
    )
    .join('');
}

function ruleHtml(r: RuleVerdict): string {
  const toolBadge = r.scope === 'tool' ? ` <span class="badge tool">${htmlEscape(r.kind)} rule</span>` : '';
  const badge = `<span class="badge ${r.verdict}">${LABEL[r.verdict]}</span>${toolBadge}`;
  const head = `${badge} <span class="id">${htmlEscape(r.id)}</span> <span class="stmt">${htmlEscape(r.statement)}</span>`;
  const notJudged = r.notJudged.map(
    (n) =>
      `${htmlEscape(CATEGORY_LABEL[n.category])}${n.part ? ` (part ${htmlEscape(n.part)})` : ''}: ${htmlEscape(n.reason)}`,
  );
  const reasons =
    r.verdict === 'not_judged'
      ? `<div class="reasons">${notJudged.join('<br>')}</div>`
      : r.verdict === 'passed'
        ? `<div class="reasons">${r.judgements} judgement${r.judgements === 1 ? '' : 's'}</div>`
        : '';
  const kept = r.failureCount > r.failures.length ? ` (${r.failures.length} kept as evidence)` : '';
  const evidence = r.failures.length
    ? `<details open><summary>${r.failureCount} finding${r.failureCount > 1 ? 's' : ''}${kept}</summary>` +
      `${r.failures.map(failureHtml).join('<hr>')}</details>`
    : '';
  const expected = r.expected?.length
    ? `<details open><summary>${r.expectedCount ?? r.expected.length} finding(s) failed as expected (expectedFailures)</summary>` +
      r.expected
        .map(
          (f) =>
            `${f.expectedReason ? `<div class="reasons">declared: ${htmlEscape(f.expectedReason)}</div>` : ''}${failureHtml(f)}`,
        )
        .join('<hr>') +
      '</details>'
    : '';
  const errors =
    r.verdict === 'engine_error'
      ? `<details open><summary>engine error (the tool broke, not the target)</summary>${engineErrorHtml(r)}</details>`
      : '';
  return `<div class="rule" id="${htmlEscape(r.id)}">${head}${partsHtml(r)}${reasons}${evidence}${expected}${errors}</div>`;
}

/** The conditions of a rule of several parts, each with its verdict. */
function partsHtml(r: RuleVerdict): string {
  if (r.parts.length < 2) return '';
  const count = (n: number) => (n ? ` <span class="reasons">(${n} judgement${n === 1 ? '' : 's'})</span>` : '');
  const items = r.parts.map(
    (p) =>
      `<li><span class="badge ${p.verdict}">${LABEL[p.verdict]}</span> <span class="id">${htmlEscape(p.id)}</span> ` +
      `${htmlEscape(p.statement)}${count(p.judgements)}</li>`,
  );
  return `<ul class="parts">${items.join('')}</ul>`;
}

function notJudgedSection(report: Report): string {
  const groups = unjudgedGroups(report);
  if (!groups.length) return '';
  const n = narrative(report);
  const gapLine = n.gapLine
    ? `<p${report.summary.gaps.unaccepted.length ? ' class="verdict-failed-text"' : ''}>${htmlEscape(n.gapLine)}</p>`
    : '';
  const link = (key: string) => `<a href="#${htmlEscape(key.split('#')[0])}">${htmlEscape(key)}</a>`;
  const rows = groups
    .map(
      (g) =>
        `<tr><td>${htmlEscape(CATEGORY_LABEL[g.category])}</td><td>${htmlEscape(g.reason)}</td>` +
        `<td>${g.ruleIds.map(link).join(', ')}</td></tr>`,
    )
    .join('');
  return (
    `<section id="not-judged"><h2>Not judged (${report.summary.rules.notJudged} rules)</h2>${gapLine}` +
    `<table><thead><tr><th>Why</th><th>Reason</th><th>Rules</th></tr></thead><tbody>${rows}</tbody></table></section>`
  );
}

/** The very top of the page for the person whose gate went red: each failed rule, linked to its evidence. */
function failedSection(rules: RuleVerdict[]): string {
  const failed = rules.filter((r) => r.verdict === 'failed');
  if (!failed.length) return '';
  const more = (r: RuleVerdict) =>
    r.failureCount > 1 ? ` (and ${r.failureCount - 1} more finding${r.failureCount > 2 ? 's' : ''})` : '';
  const part = (r: RuleVerdict) => (r.failures[0]?.part ? `#${r.failures[0].part}` : '');
  const items = failed.map(
    (r) =>
      `<li><a href="#${htmlEscape(r.id)}"><span class="id">${htmlEscape(r.id + part(r))}</span></a> ${htmlEscape(r.statement)}` +
      `<div class="reasons">${htmlEscape(r.reasons[0] ?? '')}${more(r)}</div></li>`,
  );
  const count = `${failed.length} rule${failed.length > 1 ? 's' : ''}`;
  return `<section id="failed-rules"><h2>Failed (${count})</h2><ol>${items.join('')}</ol></section>`;
}

const cell = (n: number) => `<td class="n${n > 0 ? ' hot' : ''}">${n}</td>`;

/** The run's line under the headline: target, profile, seed, fixtures and shard (or the traffic judged), duration, start and id. */
function metaLine(run: Report['run']): string {
  return [
    'Billing and Monetization Service',
    `${htmlEscape(run.target.baseUrl)}${run.target.bundled ? ' (bundled reference)' : ''}`,
    ...(run.traffic
      ? [
          `traffic: ${htmlEscape(run.traffic.source)}, ${run.traffic.exchanges} exchanges from ${run.traffic.clients} client(s)`,
        ]
      : [
          `profile ${run.profile}`,
          `seed ${run.seed}`,
          `fixtures ${htmlEscape(run.fixtures.strategy)}${run.shard ? ` · shard ${run.shard.index}/${run.shard.count}` : ''}`,
        ]),
    `${(run.durationMs / 1000).toFixed(1)} s`,
    htmlEscape(run.startedAt),
    `run ${htmlEscape(run.id)}`,
  ].join(' · ');
}

/** The counts of rules and scenarios, with a link to the advisory notes. */
function overview(s: Report['summary'], notes: number): string {
  const notesLink = notes
    ? ` · <a href="#notes">${notes} advisory note${notes > 1 ? 's' : ''}</a>, counted apart: never failures`
    : '';
  return (
    `<span class="badge failed">${s.rules.failed} failed</span> ` +
    `<span class="badge passed">${s.rules.passed} passed</span> ` +
    (s.rules.expectedFailure
      ? `<span class="badge expected_failure">${s.rules.expectedFailure} failed as expected</span> `
      : '') +
    `<span class="badge not_judged">${s.rules.notJudged} not judged</span> ` +
    `<span class="badge engine_error">${s.rules.engineError} engine error</span> of ${s.rules.total} rules · ` +
    `${s.scenarios.total} scenarios (${s.scenarios.failed} failed, ${s.scenarios.skipped} ended early, ` +
    `${s.scenarios.error} engine errors)${notesLink}`
  );
}

export function renderHtml(report: Report): string {
  const { run, summary: s } = report;
  const target = report.rules.filter((r) => r.scope === 'target');
  const tool = report.rules.filter((r) => r.scope === 'tool');
  const sections = new Map<string, RuleVerdict[]>();
  for (const r of target) sections.set(r.section, [...(sections.get(r.section) ?? []), r]);
  const order = (rs: RuleVerdict[]) => [...rs].sort((a, b) => rank(a) - rank(b));
  const familyCell = (family: string, failed: number) => {
    if (!failed) return htmlEscape(family);
    const first = target.find((r) => r.family === family && r.verdict === 'failed');
    return `<a href="#${htmlEscape(first?.id ?? '')}">${htmlEscape(family)}</a>`;
  };
  const familyRows = s.families
    .map(
      (f) =>
        `<tr><td>${familyCell(f.family, f.failed)}</td><td class="n">${f.passed}</td>${cell(f.failed)}` +
        `<td class="n">${f.notJudged}</td>${cell(f.engineError)}</tr>`,
    )
    .join('');
  const matrix = report.rules
    .map(
      (r) =>
        `<tr><td><a href="#${htmlEscape(r.id)}">${htmlEscape(r.id)}</a></td><td>${htmlEscape(r.section)}</td>` +
        `<td>${htmlEscape(r.kind)}</td><td class="c">${r.scenarios.length}</td><td class="c">${r.judgements}</td>` +
        `<td><span class="badge ${r.verdict}">${LABEL[r.verdict]}</span></td></tr>`,
    )
    .join('');
  const notes = report.scenarios.flatMap((sc) => sc.notes.map((n) => `${sc.suite} › ${sc.title}: ${n}`));
  const notesHtml = notes.length
    ? `<details id="notes"><summary>${notes.length} advisory note${notes.length > 1 ? 's' : ''} ` +
      '(never failures, never judgements)</summary>' +
      `<ul>${notes.map((n) => `<li>${htmlEscape(n)}</li>`).join('')}</ul></details>`
    : '';
  const n = narrative(report);
  const apartLines = [
    ...n.stale.map((l) => `<li class="verdict-failed">${htmlEscape(l)}</li>`),
    ...n.expected.map(
      (e) =>
        `<li>failed as expected: <a href="#${htmlEscape(e.key.split('#')[0])}">${htmlEscape(e.key)}</a> ${htmlEscape(e.title)}` +
        `${e.reason ? ` — declared: ${htmlEscape(e.reason)}` : ''}</li>`,
    ),
    ...n.unconfirmed.map((l) => `<li>${htmlEscape(l)}</li>`),
    ...(n.refusals
      ? [
          `<li>${htmlEscape(n.refusals.line)}<ul>${n.refusals.examples.map((e) => `<li>${htmlEscape(e)}</li>`).join('')}</ul></li>`,
        ]
      : []),
  ];
  const apartHtml = apartLines.length
    ? `<section id="apart"><h2>Declared and vendor's choices</h2><ul>${apartLines.join('')}</ul></section>`
    : '';
  const errorText = report.errors.map((e) => `${e.suite ? `${e.suite}: ` : ''}${e.message}`).join('\n\n');
  const errors = report.errors.length
    ? `<section id="run-errors"><h2>Run errors</h2><pre>${htmlEscape(errorText)}</pre></section>`
    : '';
  const apart = [
    s.rules.notApplicable ? `${s.rules.notApplicable} reference-server rule(s) not applicable to this target` : '',
    s.toolRules.total
      ? `${s.toolRules.total} rule(s) about the tool itself, judged by the project's own tests (<a href="#tool-rules">below</a>)`
      : '',
  ].filter(Boolean);
  const familyHead = '<tr><th>Family</th><th>Passed</th><th>Failed</th><th>Not judged</th><th>Engine error</th></tr>';
  const sectionsHtml = [...sections.entries()]
    .map(
      ([section, rules]) => `<section><h2>${htmlEscape(section)}</h2>${order(rules).map(ruleHtml).join('')}</section>`,
    )
    .join('\n');
  const matrixHead =
    '<tr><th>Rule</th><th>Section</th><th>Kind</th><th>Scenarios</th><th>Judgements</th><th>Verdict</th></tr>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Conformance report ${htmlEscape(run.id)}</title><style>${CSS}</style></head>
<body><header><h1>Conformance: ${htmlEscape(s.headline)} · <span class="verdict-${s.verdict}">${s.verdict}</span> (exit ${s.exitCode})</h1>
<div class="meta">${metaLine(run)}</div></header>
<main>
${failedSection(target)}
${apartHtml}
${notJudgedSection(report)}
<section id="overview"><p>${overview(s, notes.length)}</p>
${apart.length ? `<p class="reasons">Not counted: ${apart.join('; ')}.</p>` : ''}</section>
${errors}
<table><thead>${familyHead}</thead><tbody>${familyRows}</tbody></table>
${notesHtml}
${sectionsHtml}
${tool.length ? `<section id="tool-rules"><h2>Rules about the tool itself (not counted)</h2>${tool.map(ruleHtml).join('')}</section>` : ''}
<h2>Requirements coverage</h2>
<table class="matrix"><thead>${matrixHead}</thead><tbody>${matrix}</tbody></table>
</main></body></html>
`;
}

function rank(r: RuleVerdict): number {
  return { failed: 0, engine_error: 1, expected_failure: 2, not_judged: 3, passed: 4 }[r.verdict];
}
