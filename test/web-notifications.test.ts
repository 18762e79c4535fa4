import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInContext } from './helpers/browser.js';
import { waitFor } from './helpers/wait.js';
import { startWebFixture, type WebFixture } from './helpers/web-server.js';

/**
 * Settings (the profile page) → Notifications (contract §11): one switch per kind of personal
 * notification, saved at once through updateMember's `notifications`; what /v1 says is what
 * the page shows.
 */
let fx: WebFixture;

beforeAll(async () => {
  fx = await startWebFixture();
}, 120_000);
afterAll(async () => fx?.close());

const settings = async () => (await fx.server.api('GET', '/v1/me')).body.member.notifications as Record<string, boolean>;

describe('notification settings in the web app', { timeout: 90_000 }, () => {
  it('shows each kind as the API has it and saves a change at once, the others kept', async () => {
    expect(await settings()).toEqual({ assigned: true, mentioned: true, card_activity: true, agent_requests: true });
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    await page.goto(`${fx.server.url}/settings`);
    const section = page.getByRole('region', { name: 'Notifications' });
    await section.waitFor();
    const box = section.getByRole('checkbox', { name: /mentions me/ });
    expect(await box.isChecked()).toBe(true);
    await box.uncheck();
    await waitFor('mentioned saved as off', async () => (await settings()).mentioned === false, { timeoutMs: 10_000 });
    expect(await settings()).toEqual({ assigned: true, mentioned: false, card_activity: true, agent_requests: true });
    // A change made elsewhere (Slack's /tack notify, the API) is what the page shows after a reload.
    expect((await fx.server.api('PATCH', `/v1/members/${(await fx.server.api('GET', '/v1/me')).body.member.id}`, { body: { notifications: { assigned: false } } })).status).toBe(200);
    await page.reload();
    await section.waitFor();
    expect(await section.getByRole('checkbox', { name: /assigned to me/ }).isChecked()).toBe(false);
    expect(await section.getByRole('checkbox', { name: /mentions me/ }).isChecked()).toBe(false);
    expect(await section.getByRole('checkbox', { name: /moves or comments/ }).isChecked()).toBe(true);
    await context.close();
  });
});
