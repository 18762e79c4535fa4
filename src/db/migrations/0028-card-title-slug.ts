import type { SqlMigration } from '../migration.js';

/**
 * A card's `branch_name` without a regular expression per card read. `card_branch_name`
 * (migration 0026) slugged the title on every read, in a SQL function Postgres could not
 * inline: 23 µs a card, over 1 ms of Postgres for a page of 50 cards, which put listCards at
 * half its raw route (bench/README.md, session 20).
 *
 * - `cards.title_slug`: the title as `titleSlug` (src/domain/branch-name.ts) makes it, stored
 *   and kept by Postgres (a generated column: it changes with the title, never apart).
 * - `card_branch(prefix, number, title_slug)`: the rest of `branchName`'s rule (the ref, the
 *   60-character cut at a `-`), in PL/pgSQL: about 1 µs a card. A test holds it equal to
 *   `branchName`.
 *
 * `card_branch_name` stays, for a process of the previous version still running beside this one.
 */
export const cardTitleSlug: SqlMigration = {
  name: '0028-card-title-slug',
  up: [
    `alter table cards add column title_slug text not null generated always as (
      trim(both '-' from regexp_replace(translate(title, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), '[^a-z0-9]+', '-', 'g'))
    ) stored`,
    `create function card_branch(prefix text, number integer, title_slug text)
      returns text language plpgsql immutable parallel safe as $$
      declare
        f text := lower(prefix) || '-' || number::text || case when title_slug = '' then '' else '-' || title_slug end;
        w text;
        d integer;
      begin
        if length(f) <= 60 then
          return f;
        end if;
        -- Characters 41 to 61: a '-' among them is where the cut falls (a whole word dropped).
        w := substr(f, 41, 21);
        d := strpos(reverse(w), '-');
        if d > 0 then
          return rtrim(left(f, 40 + length(w) - d), '-');
        end if;
        return rtrim(left(f, 60), '-');
      end
    $$`,
  ],
};
