/**
 * The known field name that a mistyped or guessed one most likely meant: `status` →
 * `workflow_status`, `titel` → `title`. No imports, so the stdio MCP server can use it
 * without loading the schemas.
 */
export function closestField(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase().replace(/-/g, '_');
  let best: { name: string; score: number } | undefined;
  for (const candidate of known) {
    const score =
      candidate === lower ? 0 : candidate.split('_').includes(lower) || lower.split('_').includes(candidate) ? 1 : editDistance(lower, candidate);
    if (score <= Math.min(2, Math.floor(candidate.length / 2)) && (!best || score < best.score)) best = { name: candidate, score };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
