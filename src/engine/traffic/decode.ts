/** Bodies as the judge reads them: decoded from their content-encoding, capped in size. */
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';

export const DEFAULT_MAX_JUDGED_BYTES = 4 * 1024 * 1024;

export interface DecodedBody {
  text: string;
  /** Why the text is not the whole body (cut at the cap, an encoding that could not be decoded). */
  problem?: string;
}

function inflate(buf: Buffer): Buffer {
  // "deflate" is zlib-wrapped by the RFC, raw in some servers: accept both.
  try {
    return inflateSync(buf);
  } catch {
    return inflateRawSync(buf);
  }
}

const DECODERS: Record<string, (b: Buffer, max: number) => Buffer> = {
  gzip: (b, max) => gunzipSync(b, { maxOutputLength: max }),
  'x-gzip': (b, max) => gunzipSync(b, { maxOutputLength: max }),
  br: (b, max) => brotliDecompressSync(b, { maxOutputLength: max }),
  deflate: (b) => inflate(b),
  identity: (b) => b,
};

/**
 * Decodes `body` through every coding of `contentEncoding` (applied in order, so undone in
 * reverse). `truncated` says the bytes were cut at the capture cap already.
 */
export function decodeBody(body: Buffer, contentEncoding: string | undefined, maxBytes = DEFAULT_MAX_JUDGED_BYTES, truncated = false): DecodedBody {
  if (truncated) return { text: body.subarray(0, 2048).toString('utf8'), problem: `body larger than the ${maxBytes}-byte judging cap: not judged` };
  const codings = (contentEncoding ?? '').split(',').map((c) => c.trim().toLowerCase()).filter(Boolean).reverse();
  let out = body;
  for (const coding of codings) {
    const decode = DECODERS[coding];
    if (!decode) return { text: '', problem: `body in content-encoding ${coding}, which the judge cannot decode: not judged` };
    try {
      out = decode(out, maxBytes);
    } catch (err) {
      return { text: '', problem: `body declared ${coding} but could not be decoded (${(err as Error).message}): not judged` };
    }
  }
  if (out.length > maxBytes) return { text: out.subarray(0, 2048).toString('utf8'), problem: `body larger than the ${maxBytes}-byte judging cap: not judged` };
  return { text: out.toString('utf8') };
}
