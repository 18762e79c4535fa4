import type { SqlMigration } from '../migration.js';

/**
 * Events (contract §10): one row per change, written in the change's own transaction.
 *
 * - `seq` orders them all: the public id is `evt_<seq>`. Writers take one advisory lock just
 *   before they insert their events (held to commit), so events become visible in `seq`
 *   order: a reader that has seen `seq` n never later finds a smaller one committed, which
 *   `Last-Event-ID` resumes and keyset pages rely on.
 * - `audience`: who may read it besides the organization's filter: `org` (every member with
 *   read), `owner` (only `member_id`: a todo's owner, a private snippet's author), `admins`
 *   (owners and admins, and `member_id` itself: a token's member, the member record's member).
 * - `card_id`: the card the subject belongs to (the card, its criteria and comments, a todo
 *   mirroring one of its criteria), for `subject=<card>` filters and a card's activity.
 * - `data` is the subject as its read operation answers it after the change (null once deleted).
 */
export const events: SqlMigration = {
  name: '0019-events',
  up: [
    `create table events (
      seq bigint generated always as identity primary key,
      org_id text not null references organizations(id) on delete cascade,
      type text not null,
      created_at timestamptz not null,
      actor_member_id text,
      actor_name text not null,
      actor_agent boolean not null,
      face text not null check (face in ('web','slack','mcp','cli','api','job','github')),
      subject_type text not null,
      subject_id text not null,
      subject_ref text,
      card_id text,
      audience text not null check (audience in ('org','owner','admins')),
      member_id text,
      changes jsonb not null,
      data jsonb
    )`,
    `create index events_org on events (org_id, seq)`,
    `create index events_subject on events (org_id, subject_id, seq)`,
    `create index events_card on events (org_id, card_id, seq) where card_id is not null`,
    `create index events_actor on events (org_id, actor_member_id, seq)`,
    `create index events_created on events (created_at)`,
  ],
};
