import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postMilestoneSummaries } from '../jobs/milestone-summaries.js';
import { newId } from '../src/domain/ids.js';
import { milestoneStatusView } from '../src/slack/views/milestones.js';
import { startFakeSlack, type FakeSlack, type RecordedCall } from './helpers/fake-slack.js';
import { addMember, jobDeps, slackEnv, type TestMember } from './helpers/jobs.js';
import { startTestServer, type TestServer } from './helpers/server.js';

/**
 * Milestone summaries: each subscribed channel gets the status view of `/milestone <ref>
 * status`, with the numbers of GET /v1/milestones/{ref}/status, once per period at
 * REMINDER_HOUR in the subscription's time zone (daily; weekly on Mondays).
 */

let fake: FakeSlack;
let t: TestServer;
let ownerId: string;
let vic: TestMember;
let now = new Date('2026-03-01T00:00:00Z');

beforeAll(async () => {
  fake = await startFakeSlack();
  t = await startTestServer(slackEnv(fake), { clock: () => now });
  ownerId = (await t.api('GET', '/v1/me')).body.member.id;
  vic = await addMember(t, { name: 'Vic', slack_user_id: 'U0VIC', tz: 'UTC', role: 'viewer' });
  await t.api('POST', '/v1/boards', { body: { name: 'Engineering', slug: 'eng', ref_prefix: 'ENG' } });
  await t.api('POST', '/v1/milestones', { body: { ref: 'M1', name: 'Sprint 1', kind: 'sprint', ends_on: '2026-03-31' } });
  const a = await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'Login', milestone: 'M1', criteria: ['form', 'tests'] } });
  await t.api('POST', '/v1/cards', { body: { board: 'eng', title: 'Logout', milestone: 'M1', criteria: ['button'] } });
  await t.api('PATCH', `/v1/cards/${a.body.id}`, { body: { workflow_status: 'done' } });
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => fake.clear());

/** A subscription as `/milestone <ref> subscribe` stores it. */
async function subscribe(ref: string, channel: string, cadence: 'daily' | 'weekly', tz: string, by = ownerId): Promise<void> {
  await t.server.db.db
    .insertInto('slack_subscriptions')
    .values({ id: newId('sub'), org_id: (await t.api('GET', '/v1/me')).body.org.id, milestone_ref: ref, channel_id: channel, cadence, tz, created_by: by })
    .execute();
}

const sweep = () => postMilestoneSummaries(jobDeps(t, () => now));
const summaries = (calls: RecordedCall[], channel?: string) =>
  calls.filter((c) => c.method === 'chat.postMessage' && c.body.metadata?.event_type === 'tack_summary' && (!channel || c.body.channel === channel));

async function sweepsAt(isos: string[]): Promise<Map<string, string[]>> {
  const seen = new Map<string, string[]>();
  for (const iso of isos) {
    now = new Date(iso);
    const before = fake.calls.length;
    await sweep();
    for (const c of summaries(fake.calls.slice(before))) seen.set(c.body.channel, [...(seen.get(c.body.channel) ?? []), iso]);
  }
  return seen;
}

describe('milestone summaries', () => {
  it('post the /milestone status view, with the /v1 numbers, once a day at the hour of each channel’s time zone', async () => {
    await subscribe('M1', 'C0KOLKATA', 'daily', 'Asia/Kolkata');
    await subscribe('m1', 'C0BERLIN', 'daily', 'Europe/Berlin');
    // Kolkata 09:00 = 03:30Z; Berlin 09:00 = 08:00Z (CET), and 07:00Z after the change on 29 March.
    const seen = await sweepsAt([
      '2026-03-02T03:29:00Z', '2026-03-02T03:30:00Z', '2026-03-02T07:59:00Z', '2026-03-02T08:00:00Z', '2026-03-02T20:00:00Z',
      '2026-03-03T03:30:00Z', '2026-03-03T08:00:00Z', '2026-03-03T23:00:00Z',
      '2026-03-29T06:59:00Z', '2026-03-29T07:00:00Z', '2026-03-29T12:00:00Z',
    ]);
    expect(seen.get('C0KOLKATA')).toEqual(['2026-03-02T03:30:00Z', '2026-03-03T03:30:00Z', '2026-03-29T06:59:00Z']);
    expect(seen.get('C0BERLIN')).toEqual(['2026-03-02T08:00:00Z', '2026-03-03T08:00:00Z', '2026-03-29T07:00:00Z']);

    const status = (await t.api('GET', '/v1/milestones/M1/status')).body;
    const view = milestoneStatusView(status);
    const [post] = summaries(fake.calls, 'C0KOLKATA');
    expect(post!.body.text).toBe(view.text);
    expect(post!.body.text).toBe('M1 Sprint 1: 1/2 cards done, 0/3 criteria done');
    expect(post!.body.blocks).toEqual(view.blocks);
    expect(post!.body.metadata).toEqual({ event_type: 'tack_summary', event_payload: { subscription_id: expect.any(String), period: '2026-03-02' } });
  });

  it('post weekly on Monday at the hour, once per ISO week, across the New York DST change', async () => {
    await subscribe('M1', 'C0NEWYORK', 'weekly', 'America/New_York');
    // Monday 2 March 09:00 EST = 14:00Z; Monday 9 March 09:00 EDT (DST began on the 8th) = 13:00Z.
    const seen = await sweepsAt([
      '2026-03-02T13:59:00Z', '2026-03-02T14:00:00Z', '2026-03-04T12:00:00Z', '2026-03-08T23:00:00Z',
      '2026-03-09T12:59:00Z', '2026-03-09T13:00:00Z', '2026-03-13T12:00:00Z',
    ]);
    expect(seen.get('C0NEWYORK')).toEqual(['2026-03-02T14:00:00Z', '2026-03-09T13:00:00Z']);
    const periods = summaries(fake.calls, 'C0NEWYORK').map((c) => c.body.metadata.event_payload.period);
    expect(periods).toEqual(['2026-W10', '2026-W11']);
  });

  it('post once per period when two sweeps run at the same time', async () => {
    for (let i = 0; i < 10; i++) await subscribe('M1', `C0RACE${i}`, 'daily', 'UTC');
    now = new Date('2026-04-01T10:00:00Z');
    const [a, b] = await Promise.all([sweep(), sweep()]);
    const raced = summaries(fake.calls).filter((c) => String(c.body.channel).startsWith('C0RACE'));
    expect(raced).toHaveLength(10);
    expect(new Set(raced.map((c) => c.body.channel)).size).toBe(10);
    expect(a.sent + b.sent).toBeGreaterThanOrEqual(10);
  });

  it('skip a milestone that is gone, and read the status as the member who subscribed', async () => {
    await subscribe('M404', 'C0GONE', 'daily', 'UTC');
    await subscribe('M1', 'C0VIEWER', 'daily', 'UTC', vic.id);
    now = new Date('2026-04-02T10:00:00Z');
    const result = await sweep();
    expect(result.skipped).toBe(1);
    expect(summaries(fake.calls, 'C0GONE')).toEqual([]);
    // A viewer may read the status: their subscription is posted.
    expect(summaries(fake.calls, 'C0VIEWER')).toHaveLength(1);
  });

  it('follow a milestone to its new ref, and stop once it is deleted', async () => {
    await t.api('POST', '/v1/milestones', { body: { ref: 'R2', name: 'Renamed' } });
    await subscribe('R2', 'C0RENAMED', 'daily', 'UTC');
    expect((await t.api('PATCH', '/v1/milestones/R2', { body: { ref: 'R3' } })).status).toBe(200);
    now = new Date('2026-04-03T10:00:00Z');
    const before = await sweep();
    const [post] = summaries(fake.calls, 'C0RENAMED');
    expect(post!.body.text).toMatch(/^R3 Renamed: /);
    expect((await t.api('DELETE', '/v1/milestones/R3')).status).toBe(204);
    now = new Date('2026-04-04T10:00:00Z');
    const result = await sweep();
    expect(summaries(fake.calls, 'C0RENAMED')).toHaveLength(1);
    // Not even tried: the subscription ended with the milestone (the others skip as before).
    expect(result.skipped).toBe(before.skipped);
  });
});
