import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInContext } from './helpers/browser.js';
import { startWebFixture, type WebFixture } from './helpers/web-server.js';

/**
 * Everything the API offers, in the app (issue 32, item 11): a snippet's body copied, any
 * version viewed and restored; a milestone edited and deleted; a board renamed, ungated and
 * deleted. Offered only where the caller's role and abilities allow.
 */

let fx: WebFixture;
beforeAll(async () => {
  fx = await startWebFixture();
}, 120_000);
afterAll(async () => fx?.close());

describe('everything the API offers', { timeout: 120_000 }, () => {
  it("copies a snippet's body, shows an old version in full and restores it as a new version", async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: fx.server.url });
    const slug = fx.seeded.snippet.slug;
    const before = (await fx.server.api('GET', `/v1/snippets/${slug}`)).body;
    const v1 = (await fx.server.api('GET', `/v1/snippets/${slug}/versions/1`)).body;
    expect(before.version).toBeGreaterThan(1);
    expect(v1.body).not.toBe(before.body);
    await page.goto(`${fx.server.url}/snippets/${slug}`);
    await page.getByRole('button', { name: 'Copy body' }).click();
    await page.getByText('Body copied').waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(before.body);

    await page.getByTestId('version-pick').click();
    await page.getByRole('option', { name: /^v1 ·/ }).click();
    const region = page.getByLabel(`${before.name}, version 1`);
    await region.waitFor();
    expect((await region.textContent())?.replace(/\s+/g, ' ')).toContain('count(*) as overdue from cards c');
    await page.getByRole('button', { name: 'Restore v1' }).click();
    await page.getByText(`Restored v1 as v${before.version + 1}`).waitFor();
    const after = (await fx.server.api('GET', `/v1/snippets/${slug}`)).body;
    expect(after.version).toBe(before.version + 1);
    expect(after.body).toBe(v1.body);
    await context.close();
  });

  it('edits a milestone and deletes one', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    await page.goto(`${fx.server.url}/milestones`);
    await page.getByRole('button', { name: 'Edit M3' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit M3' });
    await dialog.getByLabel('Name').fill('Sprint 3, extended');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved M3').waitFor();
    expect((await fx.server.api('GET', '/v1/milestones/M3')).body.name).toBe('Sprint 3, extended');

    await page.getByRole('button', { name: 'Delete GA' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete milestone' }).click();
    await page.getByText('Deleted GA').waitFor();
    expect((await fx.server.api('GET', '/v1/milestones/GA')).status).toBe(404);
    await context.close();
  });

  it('renames and ungates a board, and deletes one', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    await page.goto(`${fx.server.url}/boards`);
    await page.getByRole('button', { name: 'Settings of Engineering' }).click();
    const dialog = page.getByRole('dialog', { name: 'Settings of Engineering' });
    await dialog.getByLabel('Name').fill('Product engineering');
    await dialog.getByLabel(/gated/).uncheck();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved Product engineering').waitFor();
    const eng = (await fx.server.api('GET', '/v1/boards/eng')).body;
    expect([eng.name, eng.gated]).toEqual(['Product engineering', false]);
    await fx.server.api('PATCH', '/v1/boards/eng', { body: { name: 'Engineering', gated: true } });

    const scratch = (await fx.server.api('POST', '/v1/boards', { body: { name: 'Scratch', ref_prefix: 'SCR' } })).body;
    await page.reload();
    await page.getByRole('button', { name: 'Settings of Scratch' }).click();
    await page.getByRole('dialog', { name: 'Settings of Scratch' }).getByRole('button', { name: 'Delete board' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete board' }).click();
    await page.getByText('Deleted Scratch').waitFor();
    expect((await fx.server.api('GET', `/v1/boards/${scratch.id}`)).status).toBe(404);
    await context.close();
  });

  it('offers a viewer none of it: no edit, delete, restore or settings', async () => {
    const viewer = (await fx.server.api('POST', '/v1/members', { body: { name: 'Vera Viewer', role: 'viewer' } })).body;
    const { context, page } = await signedInContext(fx.browser, fx.server.api, { memberId: viewer.id });
    await page.goto(`${fx.server.url}/snippets/${fx.seeded.snippet.slug}`);
    await page.getByRole('button', { name: 'Copy body' }).waitFor();
    await page.getByTestId('version-pick').waitFor();
    for (const name of ['Edit', 'Delete', 'Rotate', /^Restore/]) expect(await page.getByRole('button', { name }).count(), String(name)).toBe(0);
    await page.goto(`${fx.server.url}/milestones`);
    await page.getByRole('heading', { name: /M3/ }).waitFor();
    expect(await page.getByRole('button', { name: /^(Edit|Delete) / }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'New milestone' }).count()).toBe(0);
    await page.goto(`${fx.server.url}/boards`);
    await page.getByRole('link', { name: 'Engineering' }).waitFor();
    expect(await page.getByRole('button', { name: /^Settings of/ }).count()).toBe(0);
    await context.close();
  });
});
