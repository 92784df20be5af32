/** What the client sends as Accept-Encoding: exactly the codings it decodes. */
export declare const ACCEPT_ENCODING = "gzip, deflate, br";
export type Decoded = {
    body: Buffer;
    error?: undefined;
} | {
    body?: undefined;
    error: string;
};
/**
 * Undoes the codings of `contentEncoding` (applied in the order listed, so undone last
 * first). No header, or `identity`, leaves the body as it is.
 */
export declare function decodeBody(raw: Buffer, contentEncoding: string | undefined, maxBytes: number): Decoded;
