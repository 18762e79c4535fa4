import type pg from 'pg';

/** The bootstrap organization and its owner, which the bench token acts as. */
export async function owner(pool: pg.Pool): Promise<{ orgId: string; memberId: string }> {
  const { rows } = await pool.query<{ org_id: string; id: string }>(`select org_id, id from members where role = 'owner' limit 1`);
  if (!rows[0]) throw new Error('no owner: did the server bootstrap?');
  return { orgId: rows[0].org_id, memberId: rows[0].id };
}

/** Follows next_cursor `pages` times and returns the cursor of the page after that. */
export async function cursorAfter(url: string, token: string, pages: number): Promise<string> {
  let cursor: string | undefined;
  for (let i = 0; i < pages; i++) {
    const res = await fetch(cursor ? `${url}&cursor=${encodeURIComponent(cursor)}` : url, { headers: { authorization: `Bearer ${token}` } });
    if (!res.ok) throw new Error(`page ${i}: ${res.status} ${await res.text()}`);
    const page = (await res.json()) as { next_cursor?: string };
    if (!page.next_cursor) throw new Error(`the list ended after ${i + 1} pages`);
    cursor = page.next_cursor;
  }
  return cursor!;
}
