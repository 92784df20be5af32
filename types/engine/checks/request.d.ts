import type { Exchange } from '../types.ts';
import { type OperationInfo, type SpecView } from './types.ts';
export interface SentRequest {
    /** The operation the request fits (documented or reference extension), if any. */
    operation?: OperationInfo;
    /** Its decoded path parameters ({} when no operation fits). */
    params: Record<string, string>;
    /** The query string as sent, without `?`. */
    queryString: string;
    query: URLSearchParams;
    /** The JSON body sent, parsed when it travelled as text; undefined when none or not JSON. */
    body: unknown;
    /** A body travelled as text that does not parse as JSON (blank text is no body). */
    bodyNotJson: boolean;
}
/** Reads `ex`'s request against `spec`. */
export declare function readRequest(spec: SpecView, ex: Pick<Exchange, 'operationId' | 'method' | 'path' | 'requestBody'>): SentRequest;
