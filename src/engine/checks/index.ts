/** The check registry: every exchange a scenario sends runs through these. */
import type { RuleIndex, Spec } from '../../contract/index.ts';
import type { Exchange, Finding } from '../types.ts';
import { requestBreaks, type RequestBreaks } from './request-breaks.ts';
import { replayCommand } from '../http/curl.ts';
import { redactDeep } from '../http/redact.ts';
import { operationOf, type Check, type CheckContext, type OperationInfo } from './types.ts';
import { readRequest, type SentRequest } from './request.ts';
import { transport } from './transport.ts';
import { statusDocumented } from './status-documented.ts';
import { contentType } from './content-type.ts';
import { responseSchema } from './response-schema.ts';
import { errorShape } from './error-shape.ts';
import { errorMessage } from './error-message.ts';
import { objectName } from './object-name.ts';
import { idPatterns } from './id-patterns.ts';
import { listEnvelope } from './list-envelope.ts';
import { timestamps } from './timestamps.ts';
import { money } from './money.ts';
import { rateHeaders } from './rate-headers.ts';
import { tooManyRequests } from './too-many-requests.ts';
import { failedAuthHeaders } from './failed-auth-headers.ts';
import { bearerRequired } from './bearer-required.ts';
import { webhooksCreatedAt } from './webhooks-created-at.ts';
import { migrationAnswer, migrationConflictCode, migrationTargetRange } from './migration.ts';
import { migrationRangeShown, migrationSameVersion } from './migration-stream.ts';
import { rateMessages } from './rate-messages.ts';
import { rateExceeded } from './rate-exceeded.ts';
import { partialUpdates } from './partial-updates.ts';
import { laterReads } from './later-reads.ts';
import { refusals } from './refusals.ts';
import { deleteBlockers } from './delete-blockers.ts';
import { readById } from './reads.ts';
import {
  alertUpdated,
  autoTopupUpdated,
  customerUpdated,
  itemUpdated,
  productCreated,
  refundOfInvoice,
  refundReason,
  refundStatus,
  refundTotal,
  scheduleBySubscription,
  scheduleCreated,
  sourceRuleUpdated,
  webhooksUpdated,
} from './answers-as-asked.ts';
import { alertsPage, scheduleIntervals } from './pages.ts';
import { roundTrip } from './resources/round-trip.ts';
import { deletedGone } from './resources/gone.ts';
import { timestampsCourse } from './resources/timestamps-course.ts';
import { ownedByKeyMerchant } from './resources/owner.ts';
import { listWalks } from './resources/list-walks.ts';
import { derivedAmounts } from './resources/derived.ts';
import { relations } from './resources/relations.ts';
import { createdReadable } from './resources/created.ts';

/**
 * What every documented resource keeps across the exchanges of a stream (spec/openapi.yaml
 * x-resource): judged over a scenario's, a proxy session's or a HAR file's exchanges (stream.ts).
 */
export const RESOURCE_CHECKS: readonly Check[] = [
  roundTrip,
  deletedGone,
  timestampsCourse,
  ownedByKeyMerchant,
  listWalks,
  derivedAmounts,
  relations,
  createdReadable,
];

/** Each 2xx answer against the request it answers, one exchange at a time (the passive judge runs them too). */
export const ANSWER_CHECKS: readonly Check[] = [
  readById,
  productCreated,
  refundOfInvoice,
  refundStatus,
  refundTotal,
  refundReason,
  scheduleCreated,
  scheduleBySubscription,
  scheduleIntervals,
  alertsPage,
  webhooksUpdated,
  itemUpdated,
  customerUpdated,
  sourceRuleUpdated,
  alertUpdated,
  autoTopupUpdated,
];

export const CHECKS: readonly Check[] = [
  transport,
  statusDocumented,
  contentType,
  responseSchema,
  errorShape,
  errorMessage,
  objectName,
  idPatterns,
  listEnvelope,
  timestamps,
  money,
  rateHeaders,
  tooManyRequests,
  failedAuthHeaders,
  bearerRequired,
  webhooksCreatedAt,
  migrationAnswer,
  migrationConflictCode,
  migrationTargetRange,
  migrationRangeShown,
  migrationSameVersion,
  rateMessages,
  rateExceeded,
  partialUpdates,
  laterReads,
  refusals,
  deleteBlockers,
  ...ANSWER_CHECKS,
  ...RESOURCE_CHECKS,
];

/** Every rule id a check can cite (a test reconciles them with spec/rules.yaml). */
export function checkRuleIds(): string[] {
  return [...new Set(CHECKS.flatMap((c) => c.ruleIds))];
}

/**
 * The context the registry judges one exchange in, built the same way by `conform run` and the
 * passive judge: the request is read once (`request`, or now), and whether it breaks a
 * documented constraint is read off that reading.
 */
export function checkContextFor(
  contract: { spec: Spec; rules: RuleIndex },
  exchange: Exchange,
  flags: Pick<CheckContext, 'rateLimitScenario' | 'unauthenticated' | 'brokenOnPurpose'> = {},
  request: SentRequest = readRequest(contract.spec, exchange),
  breaks: RequestBreaks = requestBreaks(contract.spec, request),
): CheckContext {
  const { notJson, broken } = breaks;
  return { ...contract, ...flags, request, brokenRequest: notJson || broken.length > 0, brokenConstraints: broken };
}

export interface CheckOutcome {
  operation?: OperationInfo;
  /** Rule ids judged on this exchange, whether they held or not. */
  judged: string[];
  findings: Finding[];
  /** Checks that crashed: engine bugs, never findings against the target. */
  errors: { source: string; message: string; stack?: string }[];
}

/**
 * Runs the registry on one exchange. Extension operations and requests the spec does
 * not know are never judged; only a transport failure is reported for them.
 */
export function runChecks(exchange: Exchange, ctx: CheckContext, checks: readonly Check[] = CHECKS): CheckOutcome {
  const op = operationOf(ctx.spec, exchange);
  const judgeable = !!op && !op.extension;
  const judged = new Set<string>();
  const findings: Finding[] = [];
  const errors: CheckOutcome['errors'] = [];
  for (const check of checks) {
    if (!check.evaluate || (!judgeable && !check.always)) continue;
    let result;
    try {
      result = check.evaluate(exchange, ctx, judgeable ? op : undefined);
    } catch (err) {
      // A check that breaks is an engine bug; say so instead of blaming the target.
      errors.push({
        source: `check:${check.name}`,
        message: `check ${check.name} crashed on ${exchange.method} ${exchange.path}: ${String((err as Error)?.message ?? err)}`,
        stack: (err as Error)?.stack,
      });
      continue;
    }
    if (!result) continue;
    for (const r of result.judged) judged.add(r);
    for (const f of result.findings) findings.push(redactDeep({ ...f, replay: replayCommand(exchange) }));
  }
  return { operation: op, judged: [...judged], findings, errors };
}

export type { Check, CheckContext, SpecView, OperationInfo } from './types.ts';
export { readRequest, type SentRequest } from './request.ts';
