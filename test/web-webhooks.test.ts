import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInContext } from './helpers/browser.js';
import { waitFor } from './helpers/wait.js';
import { startWebFixture, type WebFixture } from './helpers/web-server.js';

/** Settings → Webhooks: add one (its secret shown once), see its deliveries, disable it. */
let fx: WebFixture;

beforeAll(async () => {
  fx = await startWebFixture();
}, 120_000);
afterAll(async () => fx?.close());

describe('the Webhooks settings page', { timeout: 90_000 }, () => {
  it('adds a webhook with its secret shown once, lists its deliveries, and disables it', async () => {
    const { context, page } = await signedInContext(fx.browser, fx.server.api);
    try {
      await page.goto(`${fx.server.url}/settings/webhooks`);
      await page.getByLabel('URL').fill('https://93.184.216.34/tack');
      await page.getByLabel('Events').fill('card., milestone.created');
      await page.getByRole('button', { name: 'Add webhook' }).click();
      const secret = page.getByTestId('webhook-secret');
      await secret.waitFor();
      const value = await secret.getByLabel('Signing secret').inputValue();
      expect(value).toMatch(/^whsec_/);
      const [hook] = (await fx.server.api('GET', '/v1/webhooks')).body.data;
      expect(hook).toMatchObject({ url: 'https://93.184.216.34/tack', events: ['card.', 'milestone.created'], enabled: true });
      await secret.getByRole('button', { name: 'I have copied it' }).click();
      await secret.waitFor({ state: 'detached' });

      // An event it wants waits as a delivery (no job runs here), listed with its status.
      expect((await fx.server.api('POST', '/v1/cards', { body: { board: 'design', title: 'Heard by the hook' } })).status).toBe(201);
      const panel = page.locator(`[data-webhook="${hook.id}"]`);
      await panel.getByRole('button', { name: 'Deliveries' }).click();
      const rows = panel.getByRole('table', { name: 'Deliveries' }).locator('tbody tr[data-delivery]');
      await waitFor('the delivery row', async () => (await rows.count()) === 1);
      expect(await rows.first().innerText()).toContain('pending');

      await panel.getByRole('button', { name: 'Disable' }).click();
      await panel.getByText('disabled').first().waitFor();
      expect((await fx.server.api('GET', `/v1/webhooks/${hook.id}`)).body.enabled).toBe(false);
      // Nothing on the page or in the list shows the secret again.
      expect(await page.content()).not.toContain(value);
    } finally {
      await context.close();
    }
  });
});
