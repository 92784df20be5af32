/**
 * Content codings of response bodies (RFC 9110 §8.4). A server, or a proxy in front of it,
 * may compress whatever the client accepts; the client accepts the codings decoded here.
 * Decoding happens after the capped read, with the decoded size capped as well (a small
 * compressed body can expand enormously). undici's decompress interceptor is not used: it
 * is experimental (it prints a warning), leaves error responses encoded by default and
 * drops content-encoding from the headers the reports show as evidence.
 */
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync, type ZlibOptions } from 'node:zlib';

/** What the client sends as Accept-Encoding: exactly the codings it decodes. */
export const ACCEPT_ENCODING = 'gzip, deflate, br';

type Decoder = (buf: Buffer, opts: ZlibOptions) => Buffer;

/** "deflate" is the zlib format (RFC 9110 §8.4.1.2); some servers send raw deflate, which is accepted too. */
function inflateEither(buf: Buffer, opts: ZlibOptions): Buffer {
  try {
    return inflateSync(buf, opts);
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw err;
    return inflateRawSync(buf, opts);
  }
}

const DECODERS: Record<string, Decoder> = {
  gzip: gunzipSync,
  'x-gzip': gunzipSync,
  deflate: inflateEither,
  br: (buf, opts) => brotliDecompressSync(buf, { maxOutputLength: opts.maxOutputLength }),
};

export type Decoded = { body: Buffer; error?: undefined } | { body?: undefined; error: string };

/**
 * Undoes the codings of `contentEncoding` (applied in the order listed, so undone last
 * first). No header, or `identity`, leaves the body as it is.
 */
export function decodeBody(raw: Buffer, contentEncoding: string | undefined, maxBytes: number): Decoded {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (!codings.length || raw.length === 0) return { body: raw };
  let body = raw;
  for (const coding of codings.reverse()) {
    const decode = DECODERS[coding];
    if (!decode)
      return {
        error: `response body in the content-coding "${coding}", which the client did not accept (Accept-Encoding: ${ACCEPT_ENCODING})`,
      };
    try {
      body = decode(body, { maxOutputLength: maxBytes });
    } catch (err) {
      const e = err as { code?: string; message?: string };
      if (e.code === 'ERR_BUFFER_TOO_LARGE' || /larger than|too large/i.test(e.message ?? ''))
        return { error: `decoded response body exceeds the ${maxBytes}-byte cap (content-encoding ${coding})` };
      return {
        error: `response body is not valid ${coding} (content-encoding ${coding}): ${oneLine(e.message ?? String(err))}`,
      };
    }
  }
  return { body };
}

function oneLine(s: string): string {
  return s.split('\n')[0].trim();
}
