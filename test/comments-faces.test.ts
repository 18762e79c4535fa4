import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, ensureCliBuilt } from './helpers/build-cli.js';
import { board, card, memberWithToken, token } from './helpers/factories.js';
import { connectMcp } from './helpers/mcp-http.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { runTack } from './helpers/tack.js';

/** Descriptions and comments through the CLI (`tack cards comment ENG-42 "…"`) and MCP tools: round trips that /v1 reads back. */

let t: TestServer;
let home: string;

beforeAll(async () => {
  await ensureCliBuilt();
  t = await startTestServer();
  home = mkdtempSync(join(tmpdir(), 'tack-cli-comments-'));
}, BUILD_TIMEOUT_MS);
afterAll(async () => {
  await t?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

const tack = (args: string[], input?: string) =>
  runTack(args, { input, env: { HOME: home, XDG_CONFIG_HOME: join(home, 'config'), TACK_URL: t.url, TACK_TOKEN: t.token } });

describe('comments on every face', () => {
  it('CLI: tack cards comment, comments list/update/delete, and a description piped in (its mention stored as @mem_…)', async () => {
    const b = await board(t, { name: 'Cli talk', slug: 'clitalk', ref_prefix: 'CLT' });
    const c = await card(t, { board: b.slug });
    const ada = await memberWithToken(t, { name: 'Ada Cli' });

    const added = await tack(['cards', 'comment', c.ref, 'Merged; @Ada Cli, over to you', '--json']);
    expect(added.code, added.stderr).toBe(0);
    const comment = JSON.parse(added.stdout);
    expect(comment.body).toBe(`Merged; @${ada.id}, over to you`);

    const edited = await tack(['comments', 'update', c.ref, comment.id, '--body', 'Merged', '--json']);
    expect(edited.code, edited.stderr).toBe(0);
    const listed = await tack(['comments', 'list', c.ref, '--json']);
    expect(JSON.parse(listed.stdout).data.map((x: { body: string }) => x.body)).toEqual(['Merged']);

    const described = await tack(['cards', 'update', c.ref, '--description', '-', '--json'], '# Plan\n\n- one for @Ada Cli\n');
    expect(described.code, described.stderr).toBe(0);
    expect((await t.api('GET', `/v1/cards/${c.id}`)).body.description).toBe(`# Plan\n\n- one for @${ada.id}\n`);

    const blank = await tack(['cards', 'comment', c.ref, '   ']);
    expect(blank.code).not.toBe(0);
    expect(blank.stderr).toMatch(/body/);
    const removed = await tack(['comments', 'delete', c.ref, comment.id, '--yes']);
    expect(removed.code, removed.stderr).toBe(0);
    expect((await t.api('GET', `/v1/cards/${c.id}/comments`)).body.data).toEqual([]);
  });

  it('MCP: addComment, listComments, updateComment, deleteComment and the comment events in getCardActivity', async () => {
    const b = await board(t, { name: 'Mcp talk', slug: 'mcptalk', ref_prefix: 'MCT' });
    const c = await card(t, { board: b.slug, description: 'Plan' });
    const agent = await token(t, { name: 'copilot', agent: true });
    const client = await connectMcp(t.url, agent.token);
    try {
      const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
      const added = await call('addComment', { id: c.ref, body: 'On it' });
      expect(added.isError).toBeFalsy();
      const comment = added.structuredContent as { id: string; author: { agent: boolean } };
      expect(comment.author.agent).toBe(true);
      expect((await call('updateComment', { id: c.ref, comment_id: comment.id, body: 'Done, see the PR' })).isError).toBeFalsy();
      const listed = (await call('listComments', { id: c.ref })).structuredContent as { data: { body: string }[] };
      expect(listed.data.map((x) => x.body)).toEqual(['Done, see the PR']);
      expect((await call('getCard', { id: c.ref })).structuredContent).toMatchObject({ description: 'Plan' });
      const blank = await call('addComment', { id: c.ref, body: ' ' });
      expect(blank.isError).toBe(true);
      expect((await call('deleteComment', { id: c.ref, comment_id: comment.id })).isError).toBeFalsy();
      const activity = (await call('getCardActivity', { id: c.ref, type: 'comment.' })).structuredContent as { data: { type: string; actor: { agent: boolean; face: string } }[] };
      expect(activity.data.map((e) => [e.type, e.actor.agent, e.actor.face])).toEqual([
        ['comment.deleted', true, 'mcp'],
        ['comment.updated', true, 'mcp'],
        ['comment.created', true, 'mcp'],
      ]);
    } finally {
      await client.close();
    }
  });
});
