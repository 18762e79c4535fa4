/**
 * A URL-friendly form of a name, shared by boards and snippets: accents stripped, ASCII
 * letters and digits joined by single hyphens, at most `max` characters, never ending in a
 * hyphen. `Déploy: the API!` → `deploy-the-api`. Empty when the name has no Latin letter or
 * digit; the caller picks the fallback.
 */
export function slugify(name: string, max: number): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, max)
    .replace(/-+$/, '');
}
