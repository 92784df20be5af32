/** A lint finding, whichever checker produced it. */
export type Severity = 'error' | 'warn' | 'info' | 'hint';

export interface LintFinding {
  severity: Severity;
  code: string;
  /** The file the finding is about. */
  source: string;
  /** Dotted path inside the document, e.g. paths./v0/customers.get.responses.429. */
  path: string;
  /** 1-based line, where known. */
  line?: number;
  message: string;
}

export const jsonPath = (segments: readonly (string | number)[]) => segments.map(String).join('.');
