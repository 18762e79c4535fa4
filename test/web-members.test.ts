import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { signedInContext } from './helpers/browser.js';
import { memberWithToken, type Role } from './helpers/factories.js';
import { waitFor } from './helpers/wait.js';
import { startWebFixture, type WebFixture } from './helpers/web-server.js';

/**
 * Removing a member from the members page (deleteMember, DELETE /v1/members/{id}): offered
 * only where the API would allow it (owner or admin, along the ladder, never the last owner),
 * after a confirmation; the member is gone from /v1 and their token and session get 401.
 */
let fx: WebFixture;

beforeAll(async () => {
  fx = await startWebFixture();
}, 120_000);
afterAll(async () => fx?.close());

const memberIds = async (): Promise<string[]> => (await fx.server.api('GET', '/v1/members?limit=100')).body.data.map((m: { id: string }) => m.id);

/** A new member with a token of their own. */
async function newMember(name: string, role: Role): Promise<{ id: string; token: string }> {
  return memberWithToken(fx.server, { name, role }, { name: `${name}'s key`, scopes: ['read', 'write'] });
}

/** The Remove buttons on the members page, once the list has loaded (`Remove <name>`). */
async function removeButtons(page: Page): Promise<string[]> {
  await page.goto(`${fx.server.url}/settings/members`);
  await page.getByRole('list', { name: 'Members' }).waitFor();
  await page.waitForLoadState('networkidle');
  return Promise.all((await page.getByRole('button', { name: /^Remove / }).all()).map(async (b) => (await b.getAttribute('aria-label'))!));
}

describe('removing a member in the web app', { timeout: 90_000 }, () => {
  it('removes a member after a confirmation, by keyboard; they are gone from /v1 and their token and session get 401', async () => {
    const remy = await newMember('Remy Quill', 'member');
    const card = await fx.server.api('POST', '/v1/cards', { body: { board: 'design', title: 'Remy’s card', assignee_ids: [remy.id] } });
    expect(card.status, card.text).toBe(201);
    const remySession = await signedInContext(fx.browser, fx.server.api, { memberId: remy.id });
    // Asked with the browser's cookie but not from its page: once Remy's session ends, the open
    // page's live stream ends too and the page goes to sign-in by itself.
    const remyCall = async () => (await remySession.context.request.get(`${fx.server.url}/v1/me`)).status();
    expect(await remyCall()).toBe(200);

    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    await page.goto(`${fx.server.url}/settings/members`);
    const row = page.locator(`li[data-member="${remy.id}"]`);
    await row.waitFor();
    await row.getByRole('button', { name: 'Remove Remy Quill' }).focus();
    await page.keyboard.press('Enter');

    // The confirmation names the member and what goes with them.
    const dialog = page.getByRole('alertdialog');
    await dialog.waitFor();
    expect(await dialog.getByRole('heading').innerText()).toBe(`Remove Remy Quill from ${(await fx.server.api('GET', '/v1/me')).body.org.name}?`);
    const text = await dialog.innerText();
    expect(text).toContain('their API keys, sessions and sign-in links stop working');
    expect(text).toContain('Their todos are deleted and they come off every card they were assigned to');
    // Cancel leaves them be.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await memberIds()).toContain(remy.id);

    await row.getByRole('button', { name: 'Remove Remy Quill' }).focus();
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    const confirm = dialog.getByRole('button', { name: 'Remove member' });
    for (let i = 0; i < 4 && !(await confirm.evaluate((el) => el === el.ownerDocument.activeElement)); i++) await page.keyboard.press('Tab');
    expect(await confirm.evaluate((el) => el === el.ownerDocument.activeElement), 'Tab reaches the confirm button').toBe(true);
    await page.keyboard.press('Enter');

    await row.waitFor({ state: 'detached' });
    expect(await memberIds()).not.toContain(remy.id);
    await waitFor('the removed member’s token to get 401', async () => (await fx.server.api('GET', '/v1/me', { token: remy.token })).status === 401);
    expect(await remyCall()).toBe(401);
    expect((await fx.server.api('GET', `/v1/cards/${card.body.ref}`)).body.assignee_ids).toEqual([]);
    await remySession.context.close();
    await context.close();
  });

  it('offers Remove only where the API allows it: never to a plain member, never above an admin, never on the last owner', async () => {
    const { ada, grace, linus } = fx.seeded.members;
    const owner = fx.seeded.ownerId;

    const asOwner = await signedInContext(fx.browser, fx.server.api);
    const ownerSees = await removeButtons(asOwner.page);
    expect(ownerSees).toEqual(expect.arrayContaining(['Remove Ada Lovelace', 'Remove Grace Hopper', 'Remove Linus Pauling']));
    expect(ownerSees, 'the only owner cannot remove themselves').not.toContain('Remove Sam Rivera');
    expect(await asOwner.page.locator(`li[data-member="${owner}"]`).getByRole('button', { name: /^Remove/ }).count()).toBe(0);
    await asOwner.context.close();

    const asAdmin = await signedInContext(fx.browser, fx.server.api, { memberId: ada });
    const adminSees = await removeButtons(asAdmin.page);
    expect(adminSees).toEqual(expect.arrayContaining(['Remove Ada Lovelace', 'Remove Grace Hopper', 'Remove Linus Pauling']));
    expect(adminSees, 'an owner is above an admin').not.toContain('Remove Sam Rivera');
    await asAdmin.context.close();

    for (const memberId of [grace, linus]) {
      const { context, page } = await signedInContext(fx.browser, fx.server.api, { memberId });
      expect(await removeButtons(page)).toEqual([]);
      expect(await page.locator('li[data-member]').count()).toBeGreaterThanOrEqual(4);
      await context.close();
    }
  });

  it('lines up every row: the role menu and the sign-in link sit at the same place, with Remove or without (the owner’s row)', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    await page.setViewportSize({ width: 1280, height: 800 });
    await removeButtons(page);
    const rows = await page.locator('li[data-member]').all();
    expect(rows.length).toBeGreaterThanOrEqual(4);
    const boxes = await Promise.all(
      rows.map(async (row) => {
        const role = (await row.getByRole('button', { name: /Role of/ }).boundingBox())!;
        const link = (await row.getByRole('button', { name: 'Sign-in link' }).boundingBox())!;
        return { role, link, name: await row.locator('.grow > div').first().innerText() };
      }),
    );
    const [first] = boxes;
    for (const b of boxes) {
      expect(Math.abs(b.role.x - first!.role.x), `${b.name}: role menu`).toBeLessThanOrEqual(1);
      expect(Math.abs(b.link.x - first!.link.x), `${b.name}: sign-in link`).toBeLessThanOrEqual(1);
      // The menu and the buttons share a middle line.
      expect(Math.abs(b.role.y + b.role.height / 2 - (b.link.y + b.link.height / 2)), `${b.name}: middles`).toBeLessThanOrEqual(2);
    }
    await context.close();
  });

  it('offers a plain member and a viewer no management: no Add member, no role to change; a member a sign-in link for themselves only', async () => {
    const { ada, grace, linus } = fx.seeded.members;
    /** The management controls on the members page: Add member, enabled role selects, rows with a Sign-in link. */
    const controls = async (page: Page) => {
      await page.goto(`${fx.server.url}/settings/members`);
      await page.getByRole('list', { name: 'Members' }).waitFor();
      await page.waitForLoadState('networkidle');
      const selects = await page.locator('li[data-member] .select-button').all();
      const links = await page.locator('li[data-member]').filter({ has: page.getByRole('button', { name: 'Sign-in link' }) }).all();
      return {
        addMember: await page.getByRole('button', { name: 'Add member' }).count(),
        enabledSelects: (await Promise.all(selects.map((b) => b.isEnabled()))).filter(Boolean).length,
        linkRows: await Promise.all(links.map(async (row) => (await row.getAttribute('data-member'))!)),
      };
    };
    // A viewer cannot make sign-in links at all (createSigninLink needs write).
    const asViewer = await signedInContext(fx.browser, fx.server.api, { memberId: linus });
    expect(await controls(asViewer.page)).toEqual({ addMember: 0, enabledSelects: 0, linkRows: [] });
    await asViewer.context.close();
    for (const memberId of [grace]) {
      const { context, page } = await signedInContext(fx.browser, fx.server.api, { memberId });
      expect(await controls(page)).toEqual({ addMember: 0, enabledSelects: 0, linkRows: [memberId] });
      // Their own link works: the API makes it for them (no config:write needed for oneself).
      await page.locator(`li[data-member="${memberId}"]`).getByRole('button', { name: 'Sign-in link' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Make the link' }).click();
      await waitFor('their own sign-in link', async () => /\/signin\?code=/.test(await dialog.getByLabel('Sign-in link', { exact: true }).inputValue()));
      await context.close();
    }
    // An admin manages the admin, the member and the viewer, not the owner above.
    const { context, page } = await signedInContext(fx.browser, fx.server.api, { memberId: ada });
    const admin = await controls(page);
    expect(admin.addMember).toBe(1);
    expect(admin.enabledSelects).toBeGreaterThanOrEqual(3);
    expect(admin.linkRows).toEqual(expect.arrayContaining([ada, grace, linus]));
    expect(admin.linkRows).not.toContain(fx.seeded.ownerId);
    await context.close();
  });

  it('shows the API’s refusal when the list was out of date: the last owner stays', async () => {
    const olive = await newMember('Olive Second', 'owner');
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    // A page whose live stream is not connected (yet, or lost): it learns only from the API's answer.
    await context.route('**/v1/events/stream**', (route) => route.abort());
    // Two owners: each may be removed, the signed-in one included.
    expect(await removeButtons(page)).toEqual(expect.arrayContaining(['Remove Olive Second', 'Remove Sam Rivera']));
    // Behind the app's back, the other owner goes; the page still shows two.
    expect((await fx.server.api('DELETE', `/v1/members/${olive.id}`)).status).toBe(204);
    await page.getByRole('button', { name: 'Remove Sam Rivera' }).click();
    const dialog = page.getByRole('alertdialog');
    expect(await dialog.getByRole('heading').innerText()).toMatch(/^Remove yourself from /);
    expect(await dialog.innerText()).toContain('this browser’s too');
    await dialog.getByRole('button', { name: 'Remove me' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'An organization keeps at least one owner.' });
    await alert.waitFor();
    expect(await page.locator('.toast-error').innerText()).toMatch(/Request \S+/);
    // The list is read again: Olive is gone, and the last owner is offered no Remove.
    await page.locator(`li[data-member="${olive.id}"]`).waitFor({ state: 'detached' });
    expect(await page.getByRole('button', { name: 'Remove Sam Rivera' }).count()).toBe(0);
    expect(await memberIds()).toContain(fx.seeded.ownerId);
    await context.close();
  });
});
