/** How a finding reads on one line, in every output (console, summary.md, JUnit). */
/** A finding's message without its `METHOD /path → status: ` lead, on one line, cut to a readable length. */
export function detailOf(message: string, max = 220): string {
  const one = message.split('\n')[0].replace(/^[A-Z]+ \S+ → [^:]+: /, '');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
