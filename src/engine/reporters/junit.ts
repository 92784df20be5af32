/** junit.xml: a testsuite per rule family, a testcase per rule. */
import type { Report } from './model.ts';
import type { RuleVerdict } from '../runner/verdicts.ts';

export function xmlEscape(s: string): string {
  // Characters XML 1.0 cannot hold are dropped.
  return s
    .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function failureText(r: RuleVerdict): string {
  return r.failures
    .map((f) => {
      const lines = [`${f.title}`, `  ${f.message}`];
      if (f.scenario) lines.push(`  scenario: ${f.suite} › ${f.scenario}`);
      if (f.exchange) lines.push(`  ${f.exchange.method} ${f.exchange.path} → ${f.exchange.status ?? f.exchange.transportError ?? 'no response'}`);
      if (f.replay) lines.push(`  replay: ${f.replay}`);
      return lines.join('\n');
    })
    .join('\n\n');
}

function scenarioList(r: RuleVerdict): string {
  if (!r.scenarios.length) return '';
  const more = r.scenarios.length > 10 ? `; … and ${r.scenarios.length - 10} more` : '';
  return `\nScenarios: ${r.scenarios.slice(0, 10).join('; ')}${more}`;
}

function testcase(r: RuleVerdict): string {
  const open = `    <testcase name="${xmlEscape(r.id)}" classname="${xmlEscape(`conformance.${r.family}`)}" time="0">`;
  const statement = `      <system-out>${xmlEscape(`${r.statement}\nSection: ${r.section}${scenarioList(r)}`)}</system-out>`;
  if (r.verdict === 'failed' && !r.informational) {
    return [open, `      <failure message="${xmlEscape(r.reasons.join('; '))}" type="ConformanceFailure">${xmlEscape(failureText(r))}</failure>`, statement, '    </testcase>'].join('\n');
  }
  if (r.verdict === 'failed' && r.informational) {
    return [open, `      <skipped message="${xmlEscape(`informational reference rule failed: ${r.reasons.join('; ')}`)}"/>`, statement, '    </testcase>'].join('\n');
  }
  if (r.verdict === 'skipped' || r.verdict === 'not_exercised') {
    const why = r.verdict === 'skipped' ? r.reasons.join('; ') : `not exercised: ${r.reasons.join('; ')}`;
    return [open, `      <skipped message="${xmlEscape(why)}"/>`, statement, '    </testcase>'].join('\n');
  }
  return [open, statement, '    </testcase>'].join('\n');
}

export function renderJunit(report: Report): string {
  const byFamily = new Map<string, RuleVerdict[]>();
  for (const r of report.rules) byFamily.set(r.family, [...(byFamily.get(r.family) ?? []), r]);
  const suites = [...byFamily.entries()].map(([family, rules]) => {
    const failures = rules.filter((r) => r.verdict === 'failed' && !r.informational).length;
    const skipped = rules.filter((r) => r.verdict === 'skipped' || r.verdict === 'not_exercised' || (r.verdict === 'failed' && r.informational)).length;
    return [
      `  <testsuite name="${xmlEscape(family)}" tests="${rules.length}" failures="${failures}" errors="0" skipped="${skipped}" timestamp="${xmlEscape(report.run.startedAt)}">`,
      ...rules.map(testcase),
      '  </testsuite>',
    ].join('\n');
  });
  const errors = report.errors.length
    ? [`  <testsuite name="run-errors" tests="${report.errors.length}" failures="0" errors="${report.errors.length}" skipped="0">`, ...report.errors.map((e, i) => `    <testcase name="${xmlEscape(e.suite ?? `error-${i + 1}`)}" classname="conformance.run"><error message="${xmlEscape(e.message.split('\n')[0])}">${xmlEscape(e.message)}</error></testcase>`), '  </testsuite>']
    : [];
  const s = report.summary.rules;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="billing-conform ${xmlEscape(report.run.id)}" tests="${s.total + report.errors.length}" failures="${report.rules.filter((r) => r.verdict === 'failed' && !r.informational).length}" errors="${report.errors.length}" skipped="${report.rules.filter((r) => r.verdict === 'skipped' || r.verdict === 'not_exercised' || (r.verdict === 'failed' && r.informational)).length}" time="${(report.run.durationMs / 1000).toFixed(3)}">`,
    ...suites,
    ...errors,
    '</testsuites>',
    '',
  ].join('\n');
}
