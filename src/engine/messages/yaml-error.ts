/** A YAML parse error in one line: what the parser says, where, and the line it stopped at. */
export function yamlProblem(err: unknown, text: string): string {
  const e = err as { message?: string; linePos?: { line: number; col: number }[] };
  const first = String(e?.message ?? err)
    .split('\n')[0]
    .replace(/ at line \d+, column \d+:?$/, '');
  const at = e?.linePos?.[0];
  if (!at) return `not valid YAML: ${first}`;
  const line = text.split('\n')[at.line - 1]?.trim() ?? '';
  return `not valid YAML at line ${at.line}, column ${at.col}: ${first}${line ? ` (the line reads: ${line.slice(0, 80)})` : ''}`;
}
