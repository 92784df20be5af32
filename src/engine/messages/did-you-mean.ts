/** A suggestion for a mistyped name: a command, an option, a setting. */
/** Edit distance of two short words (insertions, deletions, substitutions, adjacent swaps). */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.length][b.length];
}

/** ` Did you mean 'x'?` for the closest of `known` within a few edits of `word`, else ''. */
export function didYouMean(word: string, known: readonly string[]): string {
  const max = Math.max(1, Math.min(3, Math.floor(word.length / 3)));
  const best = known
    .map((k) => ({ k, d: distance(word.toLowerCase(), k.toLowerCase()) }))
    .filter((x) => x.d <= max)
    .sort((a, b) => a.d - b.d)[0];
  return best ? ` Did you mean '${best.k}'?` : '';
}
