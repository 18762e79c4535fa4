import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** A mention as stored (contract §11): `@` and the member's id. */
export const MENTION = /@(mem_[a-z0-9]{1,60})/g;

/** The member ids a stored body mentions, once each, in order. */
export function mentionedIds(body: string): string[] {
  return [...new Set([...body.matchAll(MENTION)].map((m) => m[1]!))];
}

interface Named {
  id: string;
  name: string;
}

/** Code in Markdown (fenced blocks, inline spans) is shown as typed: no mention is read there. */
const CODE = /(^|\n)(```|~~~)[^\n]*\n[\s\S]*?(\n\2[^\n]*(?=\n|$)|$)|`+[^`\n]*`+/g;
const WORD = /[\p{L}\p{N}_]/u;

/**
 * The names each member is mentioned by, lowercased, longest first: the full name, and the
 * first word of it where no other member's first word or name is the same (`@Ada` for Ada
 * Lovelace). A name two members share mentions neither of them.
 */
function mentionNames(members: readonly Named[]): [string, string][] {
  const unique = (pairs: [string, string][]) => {
    const map = new Map<string, string | null>();
    for (const [name, id] of pairs) if (name !== '') map.set(name, map.has(name) && map.get(name) !== id ? null : id);
    return map;
  };
  const full = unique(members.map((m) => [m.name.trim().toLowerCase(), m.id]));
  const firsts = unique(members.map((m) => [m.name.trim().toLowerCase().split(/\s+/)[0] ?? '', m.id]));
  for (const [first, id] of firsts) if (!full.has(first)) full.set(first, id);
  return [...full.entries()].filter((e): e is [string, string] => e[1] !== null).sort((a, b) => b[0].length - a[0].length);
}

/** `@name` mentions in plain text (not code) written as `@mem_…`; an `@` inside a word (an e-mail address) is no mention. */
function resolveIn(text: string, names: readonly [string, string][]): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const at = text.indexOf('@', i);
    if (at === -1) break;
    out += text.slice(i, at + 1);
    i = at + 1;
    if (at > 0 && WORD.test(text[at - 1]!)) continue;
    const rest = text.slice(i);
    const lower = rest.toLowerCase();
    const hit = names.find(([name]) => lower.startsWith(name) && !WORD.test(rest[name.length] ?? ' '));
    if (hit) {
      out += hit[1];
      i += hit[0].length;
    }
  }
  return out + text.slice(i);
}

/**
 * A body with its `@name` mentions of the organization's members stored as `@mem_…`
 * (contract §11); `@mem_…` stays as written, unknown names stay text. Code is left alone.
 */
export async function storeMentions(db: Kysely<Database>, orgId: string, body: string): Promise<string> {
  if (!body.includes('@')) return body;
  const members = await db.selectFrom('members').select(['id', 'name']).where('org_id', '=', orgId).execute();
  return writeMentions(body, members);
}

/** `storeMentions` over the members given. */
export function writeMentions(body: string, members: readonly Named[]): string {
  const names = mentionNames(members);
  if (names.length === 0) return body;
  let out = '';
  let last = 0;
  for (const m of body.matchAll(CODE)) {
    out += resolveIn(body.slice(last, m.index), names) + m[0];
    last = m.index + m[0].length;
  }
  return out + resolveIn(body.slice(last), names);
}

/**
 * A stored text with each `@mem_…` of a member in `names` written `@Name`, for the faces
 * that show plain text (Slack's description lines, a notification's excerpt); an id not in
 * `names` (a member removed, or of another organization) stays as stored.
 */
export function mentionsAsNames(text: string, names: ReadonlyMap<string, string>): string {
  return text.replace(MENTION, (whole, id: string) => {
    const name = names.get(id);
    return name === undefined ? whole : `@${name}`;
  });
}
