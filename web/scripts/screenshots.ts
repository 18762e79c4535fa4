/**
 * `npm run screenshots`: starts tack on a fresh database (DATABASE_URL's server, as the tests
 * do), seeds a small team, signs in through a one-time link in Debian's Chromium and saves
 * every page at 1280 and 375 pixels wide into docs/screenshots/ (light; the board and todos
 * also dark), the confirmation before removing a member, and the command palette open (1280 and
 * 375, light and dark).
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromium, signedInContext } from '../../test/helpers/browser.js';
import { startTestServer } from '../../test/helpers/server.js';
import { seedTeam } from '../../test/helpers/web-seed.js';

const OUT = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url));
mkdirSync(OUT, { recursive: true });

const server = await startTestServer();
const browser = await launchChromium();
try {
  const seeded = await seedTeam(server.api);
  // One webhook for its settings page (a name that does not resolve here is accepted; its deliveries would fail).
  const hook = await server.api('POST', '/v1/webhooks', { body: { url: 'https://hooks.example.com/tack', events: ['card.', 'todo.completed'], description: 'Deploy bot' } });
  if (hook.status !== 201) throw new Error(`POST /v1/webhooks answered ${hook.status}: ${hook.text}`);
  // The card page's description, discussion and timeline: a description, comments (one by an agent, one mentioning), an agent's refused move.
  const signup = seeded.cards.signup!;
  const must = async (method: string, path: string, body: unknown, token?: string) => {
    const res = await server.api(method, path, { body, token });
    if (res.status >= 300 && res.status !== 403) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
    return res.body;
  };
  await must('PATCH', `/v1/cards/${signup.id}`, {
    description: '## Goal\n\nA sign-up form that **validates as you type** and announces errors to screen readers.\n\n- Email and password fields\n- Errors under each field\n\nSee the [design notes](https://example.com/design).',
  });
  const people = (await server.api('GET', '/v1/members?limit=100')).body.data as { id: string; name: string }[];
  const bot = await must('POST', '/v1/tokens', { name: 'Copilot', scopes: ['read', 'write'], agent: true });
  await must('POST', `/v1/cards/${signup.id}/comments`, { body: `I started on the form. @${people[1]?.id ?? people[0]!.id}, can you check the error copy?` });
  await must('POST', `/v1/cards/${signup.id}/comments`, { body: 'Added `aria-describedby` to both fields; tests pass.' }, bot.token);
  await must('PATCH', `/v1/cards/${signup.id}`, { workflow_status: 'done' }, bot.token);
  const pages: [string, string][] = [
    ['boards', '/boards'],
    ['board', '/boards/eng'],
    ['card', `/cards/${seeded.cards.signup!.ref}`],
    ['todos', '/todos'],
    ['snippets', '/snippets'],
    ['snippet', `/snippets/${seeded.snippet.slug}`],
    ['milestones', '/milestones'],
    ['milestone', '/milestones/M3'],
    ['settings', '/settings'],
    ['api-keys', '/settings/api-keys'],
    ['sessions', '/settings/sessions'],
    ['members', '/settings/members'],
    ['webhooks', '/settings/webhooks'],
  ];
  const shots: { width: number; scheme: 'light' | 'dark'; only?: string[] }[] = [
    { width: 1280, scheme: 'light' },
    { width: 375, scheme: 'light' },
    { width: 1280, scheme: 'dark', only: ['board', 'card', 'todos', 'snippet'] },
    { width: 375, scheme: 'dark', only: ['card'] },
  ];
  for (const shot of shots) {
    const { context, page } = await signedInContext(browser, server.api, { colorScheme: shot.scheme, width: shot.width, height: 900 });
    for (const [name, path] of pages) {
      if (shot.only && !shot.only.includes(name)) continue;
      await page.goto(`${server.url}${path}`);
      await page.locator('main h1').first().waitFor({ state: 'attached' });
      await page.waitForLoadState('networkidle');
      const file = `${OUT}${name}-${shot.width}${shot.scheme === 'dark' ? '-dark' : ''}.png`;
      await page.screenshot({ path: file, fullPage: true });
      process.stdout.write(`saved ${file}\n`);
      if (name === 'members' && shot.scheme === 'light') {
        // The confirmation before removing a member.
        await page.getByRole('button', { name: 'Remove Grace Hopper' }).click();
        await page.getByRole('alertdialog').waitFor();
        const dialogFile = `${OUT}members-remove-${shot.width}.png`;
        await page.screenshot({ path: dialogFile });
        process.stdout.write(`saved ${dialogFile}\n`);
        await page.keyboard.press('Escape');
      }
    }
    await context.close();
  }
  // The command palette (⌘K), searching as the word is typed, light and dark, at both widths.
  for (const scheme of ['light', 'dark'] as const) {
    for (const width of [1280, 375]) {
      const { context, page } = await signedInContext(browser, server.api, { colorScheme: scheme, width, height: 900 });
      await page.goto(`${server.url}/boards/eng`);
      await page.locator('main h1').first().waitFor({ state: 'attached' });
      await page.waitForLoadState('networkidle');
      await page.keyboard.press('Control+k');
      await page.getByRole('dialog', { name: 'Search or run a command' }).waitFor();
      await page.keyboard.type('sign');
      await page.getByRole('menuitem', { name: /Sign-up form/ }).first().waitFor();
      await page.keyboard.press('ArrowDown');
      const file = `${OUT}palette-${width}${scheme === 'dark' ? '-dark' : ''}.png`;
      await page.screenshot({ path: file });
      process.stdout.write(`saved ${file}\n`);
      await context.close();
    }
  }
} finally {
  await browser.close();
  await server.close();
}
