/** The longest `branch_name` (contract §12). */
export const BRANCH_NAME_MAX = 60;
// A cut falls on a `-` when one stands in the last 20 characters kept.
const CUT_WINDOW = 20;

/**
 * The title as a slug: ASCII letters lowered, digits kept, every other run of characters one
 * `-`, none at either end (`Sign-up form: validates e-mail!` → `sign-up-form-validates-e-mail`).
 */
export function titleSlug(title: string): string {
  // Every other character goes first, so lowering what is left lowers ASCII letters only.
  return title
    .replace(/[^A-Za-z0-9]+/g, '-')
    .toLowerCase()
    .replace(/^-+|-+$/g, '');
}

/**
 * A card's `branch_name` (contract §12): `<ref lower-case>-<title slug>`, at most 60
 * characters, cut at a `-` when one falls in the last 20 (a whole word is dropped rather than
 * cut in two), never ending in `-`. Postgres builds the same for card lists
 * (`card_branch` of the stored `title_slug`, migration 0028); tests hold the two equal.
 */
export function branchName(ref: string, title: string): string {
  const slug = titleSlug(title);
  const full = slug === '' ? ref.toLowerCase() : `${ref.toLowerCase()}-${slug}`;
  if (full.length <= BRANCH_NAME_MAX) return full;
  // One character more than fits: a `-` right after the 60th means the 60 end on a whole word.
  const dash = full.slice(0, BRANCH_NAME_MAX + 1).lastIndexOf('-');
  const cut = dash >= BRANCH_NAME_MAX - CUT_WINDOW ? full.slice(0, dash) : full.slice(0, BRANCH_NAME_MAX);
  return cut.replace(/-+$/, '');
}
