/**
 * What a person typed as a search, made safe to hand to Postgres: control characters
 * (NUL cannot even be sent) become spaces. Blank means no search.
 */
export function searchText(q: string | undefined): string | undefined {
  if (q === undefined) return undefined;
  const text = q.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return text === '' ? undefined : text;
}

/**
 * The last word of a search, which matches as a prefix (`search_query`, migration 0021), or
 * '' when the text does not end with a plain word: one inside an open or closed quote, an
 * excluded `-word`, the operator `or`, or text ending in punctuation (`foo.`) keeps its exact
 * meaning.
 */
export function lastWord(text: string): string {
  const m = /(^|\s)(\S+)$/u.exec(text);
  if (!m) return '';
  const word = m[2]!;
  const before = text.slice(0, text.length - word.length);
  const quotes = before.split('"').length - 1;
  if (word.includes('"') || word.startsWith('-') || /^or$/i.test(word) || quotes % 2 === 1) return '';
  return /[\p{L}\p{N}]$/u.test(word) ? word : '';
}
