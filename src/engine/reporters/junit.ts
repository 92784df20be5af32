/** junit.xml: a testsuite per rule family, a testcase per rule. */
import { detailOf } from '../messages/finding-text.ts';
import type { Report } from './model.ts';
import { narrative } from './narrative.ts';
import type { RuleVerdict } from './verdicts.ts';

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

/** The failure's one line: what failed first and what it found (the field, what was expected, what came back). */
function failureMessage(r: RuleVerdict): string {
  const first = r.failures[0];
  const head = first ? `${first.title}: ${detailOf(first.message)}` : (r.reasons[0] ?? 'failed');
  const others = r.reasons.filter((x) => x !== first?.title);
  return others.length ? `${head} (and: ${others.slice(0, 3).join('; ')})` : head;
}

function failureText(r: RuleVerdict): string {
  return r.failures
    .map((f) => {
      const lines = [`${f.title}`, `  ${f.message}`];
      if (f.scenario) lines.push(`  scenario: ${f.suite} › ${f.scenario}`);
      if (f.exchange)
        lines.push(
          `  ${f.exchange.method} ${f.exchange.path} → ${f.exchange.status ?? f.exchange.transportError ?? 'no response'}`,
        );
      if (f.replaySequence)
        lines.push(
          '  replay (the whole sequence):',
          ...f.replaySequence
            .trimEnd()
            .split('\n')
            .map((l) => `    ${l}`),
        );
      else if (f.replay) lines.push(`  replay: ${f.replay}`);
      return lines.join('\n');
    })
    .join('\n\n');
}

function scenarioList(r: RuleVerdict): string {
  if (!r.scenarios.length) return '';
  const more = r.scenarios.length > 10 ? `; … and ${r.scenarios.length - 10} more` : '';
  return `\nScenarios: ${r.scenarios.slice(0, 10).join('; ')}${more}`;
}

function notJudgedText(r: RuleVerdict): string {
  return (
    r.notJudged.map((n) => `not judged (${n.category})${n.part ? ` part ${n.part}` : ''}: ${n.reason}`).join('; ') ||
    'not judged'
  );
}

/** A rule's parts, each with its verdict: only for rules of several parts. */
function partsText(r: RuleVerdict): string {
  if (r.parts.length < 2) return '';
  return `\nParts:\n${r.parts.map((p) => `  ${p.id} [${p.verdict}]: ${p.statement}`).join('\n')}`;
}

function engineErrorText(r: RuleVerdict): string {
  return r.engineErrors
    .map((e) => [`${e.scenario ?? e.source}: ${e.message}`, e.stack ?? ''].filter(Boolean).join('\n'))
    .join('\n\n');
}

/** Seconds a rule took: the time of the scenarios that cited or judged it (each scenario counted once per rule). */
type Timing = (r: RuleVerdict) => number;

function timing(report: Report): Timing {
  const ms = new Map(report.scenarios.map((s) => [`${s.suite} › ${s.title}`, s.durationMs]));
  return (r) => r.scenarios.reduce((sum, label) => sum + (ms.get(label) ?? 0), 0) / 1000;
}

function testcase(r: RuleVerdict, time: Timing, classPrefix = 'conformance'): string {
  const open =
    `    <testcase name="${xmlEscape(r.id)}" ` +
    `classname="${xmlEscape(`${classPrefix}.${r.family}`)}" time="${time(r).toFixed(3)}">`;
  const body =
    r.verdict === 'failed'
      ? `      <failure message="${xmlEscape(failureMessage(r))}" type="ConformanceFailure">${xmlEscape(failureText(r))}</failure>`
      : r.verdict === 'engine_error'
        ? `      <error message="${xmlEscape(`engine error (the tool broke, not the target): ${r.reasons.join('; ')}`)}" ` +
          `type="EngineError">${xmlEscape(engineErrorText(r))}</error>`
        : r.verdict === 'not_judged'
          ? `      <skipped message="${xmlEscape(notJudgedText(r))}"/>`
          : '';
  // Failed as declared: a passing testcase whose output says what failed and the declared reason.
  const expected =
    r.verdict === 'expected_failure'
      ? `\nFailed as expected (expectedFailures): ${r.expected
          ?.map((f) => `${f.title}${f.expectedReason ? ` — declared: ${f.expectedReason}` : ''}`)
          .filter((x, i, all) => all.indexOf(x) === i)
          .join('; ')}`
      : '';
  const out = `${r.statement}\nSection: ${r.section}${partsText(r)}${scenarioList(r)}${expected}`;
  const statement = `      <system-out>${xmlEscape(out)}</system-out>`;
  return [open, ...(body ? [body] : []), statement, '    </testcase>'].join('\n');
}

function suiteXml(name: string, rules: RuleVerdict[], timestamp: string, time: Timing, classPrefix?: string): string {
  const n = (v: RuleVerdict['verdict']) => rules.filter((r) => r.verdict === v).length;
  const total = rules.reduce((sum, r) => sum + time(r), 0);
  return [
    `  <testsuite name="${xmlEscape(name)}" tests="${rules.length}" failures="${n('failed')}" ` +
      `errors="${n('engine_error')}" skipped="${n('not_judged')}" time="${total.toFixed(3)}" ` +
      `timestamp="${xmlEscape(timestamp)}">`,
    ...rules.map((r) => testcase(r, time, classPrefix)),
    '  </testsuite>',
  ].join('\n');
}

/** The first testsuite: the verdict, the failures, what was not judged and why; a failure when gaps are not accepted. */
function summarySuite(report: Report): string {
  const s = report.summary;
  const n = narrative(report);
  const text = [
    n.verdictLine,
    ...n.failed.map(
      (f) => `failed ${f.key}: ${f.title}${f.evidence ? ` — ${f.evidence}` : ''}${f.detail ? `: ${f.detail}` : ''}`,
    ),
    ...n.stale,
    ...n.expected.map((e) => `failed as expected ${e.key}: ${e.title}${e.reason ? ` — declared: ${e.reason}` : ''}`),
    ...n.engineErrors.map((e) => `engine error ${e.id}: ${e.reason}`),
    ...n.runErrors.map((e) => `error: ${e}`),
    ...n.unjudged.map(
      (g) => `not judged [${g.label}${g.accepted ? ', accepted' : ''}] ${g.reason} — ${g.keys.join(', ')}`,
    ),
    ...(n.nothingJudged ? [`nothing was judged: ${n.nothingJudged}`] : []),
    ...(n.gapLine ? [n.gapLine] : []),
    ...(n.skipLine ? [n.skipLine] : []),
    n.verdictLine,
  ];
  const out = `      <system-out>${xmlEscape(text.join('\n'))}</system-out>`;
  const unjudged = s.exitCode === 3;
  const gap = unjudged
    ? `      <failure message="${xmlEscape(n.nothingJudged ?? n.gapLine ?? n.skipLine ?? n.verdictLine)}" ` +
      `type="UnjudgedRules">${xmlEscape(s.gaps.unaccepted.join('\n'))}</failure>`
    : n.stale.length
      ? `      <failure message="${xmlEscape(n.stale[0])}" type="StaleExpectedFailure">${xmlEscape(n.stale.join('\n'))}</failure>`
      : '';
  return [
    `  <testsuite name="summary" tests="1" failures="${gap ? 1 : 0}" errors="0" skipped="0" ` +
      `timestamp="${xmlEscape(report.run.startedAt)}">`,
    `    <testcase name="${xmlEscape(n.verdictLine)}" classname="conformance.summary" time="0">`,
    ...(gap ? [gap] : []),
    out,
    '    </testcase>',
    '  </testsuite>',
  ].join('\n');
}

export function renderJunit(report: Report): string {
  const target = report.rules.filter((r) => r.scope === 'target');
  const tool = report.rules.filter((r) => r.scope === 'tool');
  const byFamily = new Map<string, RuleVerdict[]>();
  for (const r of target) byFamily.set(r.family, [...(byFamily.get(r.family) ?? []), r]);
  const time = timing(report);
  const suites = [...byFamily.entries()].map(([family, rules]) => suiteXml(family, rules, report.run.startedAt, time));
  if (tool.length)
    suites.push(suiteXml('rules about the tool (not counted)', tool, report.run.startedAt, time, 'tool'));
  const errors = report.errors.length
    ? [
        `  <testsuite name="run-errors" tests="${report.errors.length}" failures="0" errors="${report.errors.length}" skipped="0">`,
        ...report.errors.map(
          (e, i) =>
            `    <testcase name="${xmlEscape(e.suite ?? `error-${i + 1}`)}" ` +
            `classname="conformance.run"><error ` +
            `message="${xmlEscape(e.message.split('\n')[0])}">${xmlEscape(e.message)}</error></testcase>`,
        ),
        '  </testsuite>',
      ]
    : [];
  const all = report.rules;
  const n = (v: RuleVerdict['verdict']) => all.filter((r) => r.verdict === v).length;
  const gap = report.summary.exitCode === 3 || (report.summary.expectations?.stale ?? 0) > 0 ? 1 : 0;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlEscape(`billing-conform ${report.run.id}: ${narrative(report).verdictLine}`)}" ` +
      `tests="${all.length + 1 + report.errors.length}" failures="${n('failed') + gap}" ` +
      `errors="${n('engine_error') + report.errors.length}" skipped="${n('not_judged')}" ` +
      `time="${(report.run.durationMs / 1000).toFixed(3)}">`,
    summarySuite(report),
    ...suites,
    ...errors,
    '</testsuites>',
    '',
  ].join('\n');
}
