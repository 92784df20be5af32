import { defineCheck, finding, isObject, describeStatus } from './types.ts';
import { looksLikeValidationError } from './error-shape.ts';

/**
 * An Error body's message is "Human-readable" (interface document, Errors): a string with
 * no text in it reads as nothing. The words themselves are never judged; clients must not
 * parse them. A ValidationError's message is described without that note, so it is left out.
 */
export const errorMessage = defineCheck({
  name: 'error-message',
  ruleIds: ['ERRORS.MESSAGE.READABLE'],
  description: 'The message of a 4xx Error body has text in it (not empty or blank).',
  evaluate(ex, ctx, op) {
    const s = ex.status;
    if (
      s === undefined ||
      s < 400 ||
      s >= 500 ||
      !op ||
      !isObject(ex.body) ||
      typeof ex.body.message !== 'string' ||
      looksLikeValidationError(ex.body, ctx.spec)
    )
      return;
    return {
      judged: ['ERRORS.MESSAGE.READABLE'],
      findings: ex.body.message.trim()
        ? []
        : [
            finding(
              'error-message',
              ['ERRORS.MESSAGE.READABLE'],
              'Error message is blank',
              `${describeStatus(ex)}: message ${JSON.stringify(ex.body.message)} has no text for a human to read.`,
              ex,
            ),
          ],
    };
  },
});
