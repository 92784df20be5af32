/** Bodies as the judge reads them: decoded from their content-coding (as the HTTP client does), capped in size. */
import { decodeBody as decodeCoded } from '../../engine/http/decode.ts';

export const DEFAULT_MAX_JUDGED_BYTES = 4 * 1024 * 1024;

export interface DecodedBody {
  text: string;
  /** Why the text is not the whole body (cut at the cap, a coding that could not be decoded): not judged. */
  problem?: string;
}

/** Decodes `body` per `contentEncoding`; `truncated` says the bytes were already cut at the capture cap. */
export function decodeBody(
  body: Buffer,
  contentEncoding: string | undefined,
  maxBytes = DEFAULT_MAX_JUDGED_BYTES,
  truncated = false,
): DecodedBody {
  if (truncated)
    return {
      text: body.subarray(0, 2048).toString('utf8'),
      problem: `body larger than the ${maxBytes}-byte judging cap: not judged`,
    };
  const d = decodeCoded(body, contentEncoding, maxBytes);
  if (d.error !== undefined) return { text: '', problem: `${d.error}: not judged` };
  if (d.body.length > maxBytes)
    return {
      text: d.body.subarray(0, 2048).toString('utf8'),
      problem: `body larger than the ${maxBytes}-byte judging cap: not judged`,
    };
  return { text: d.body.toString('utf8') };
}
