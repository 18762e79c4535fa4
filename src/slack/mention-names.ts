import { mentionedIds } from '../domain/mentions.js';
import type { Caller } from './command-context.js';

/** Pages of members read at most (100 each) to name a text's mentions. */
const NAME_PAGES = 10;

/**
 * The names of the members a stored text (a card's description) mentions as `@mem_…`, read
 * as the caller through listMembers until all are found, for `cardView` to show `@Name`.
 */
export async function mentionNames(call: Caller, text: string | null): Promise<Map<string, string>> {
  const wanted = new Set(text ? mentionedIds(text) : []);
  const names = new Map<string, string>();
  let cursor: string | undefined;
  for (let page = 0; names.size < wanted.size && page < NAME_PAGES; page++) {
    const members = await call('listMembers', { limit: 100, ...(cursor === undefined ? {} : { cursor }) });
    for (const m of members.data) if (wanted.has(m.id)) names.set(m.id, m.name);
    if (!members.next_cursor) break;
    cursor = members.next_cursor;
  }
  return names;
}
