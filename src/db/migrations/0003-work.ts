import type { SqlMigration } from '../migration.js';

/**
 * Boards, cards (with criteria and assignees), todos and milestones.
 *
 * Counts (`criteria_done`, milestone status) are derived by query, never stored, so a
 * repeated tick or a concurrent write cannot make them drift. A board's `next_ref` is the
 * card-number counter: `update … set next_ref = next_ref + 1 returning` locks the board row,
 * so concurrent creations take numbers one after another and a deleted card's number is never
 * handed out again.
 */
export const work: SqlMigration = {
  name: '0003-work',
  up: [
    `create table boards (
      id text primary key,
      org_id text not null references organizations(id) on delete cascade,
      name text not null,
      slug text not null,
      ref_prefix text not null,
      gated boolean not null default false,
      next_ref integer not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`,
    `create unique index boards_org_slug on boards (org_id, slug)`,
    `create unique index boards_org_prefix on boards (org_id, ref_prefix)`,
    `create index boards_org_created on boards (org_id, created_at desc, id desc)`,

    `create table milestones (
      id text primary key,
      org_id text not null references organizations(id) on delete cascade,
      ref text not null,
      name text not null,
      kind text not null check (kind in ('sprint','deadline')),
      ends_on date,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`,
    `create unique index milestones_org_ref on milestones (org_id, lower(ref))`,
    `create index milestones_org_created on milestones (org_id, created_at desc, id desc)`,

    `create table cards (
      id text primary key,
      org_id text not null references organizations(id) on delete cascade,
      board_id text not null references boards(id) on delete cascade,
      number integer not null,
      title text not null,
      workflow_status text not null default 'backlog'
        check (workflow_status in ('backlog','in_progress','in_review','done')),
      due_on date,
      milestone_id text references milestones(id) on delete set null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (board_id, number)
    )`,
    `create index cards_org_created on cards (org_id, created_at desc, id desc)`,
    `create index cards_org_status_created on cards (org_id, workflow_status, created_at desc, id desc)`,
    `create index cards_board_created on cards (board_id, created_at desc, id desc)`,
    `create index cards_milestone on cards (milestone_id) where milestone_id is not null`,

    `create table card_assignees (
      card_id text not null references cards(id) on delete cascade,
      member_id text not null references members(id) on delete cascade,
      position integer not null,
      primary key (card_id, member_id)
    )`,
    `create index card_assignees_member on card_assignees (member_id, card_id)`,

    `create table criteria (
      id text primary key,
      org_id text not null references organizations(id) on delete cascade,
      card_id text not null references cards(id) on delete cascade,
      position integer not null,
      title text not null,
      done boolean not null default false,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (card_id, position)
    )`,

    `create table todos (
      id text primary key,
      member_id text not null references members(id) on delete cascade,
      org_id text references organizations(id) on delete cascade,
      title text not null,
      priority text not null default 'medium' check (priority in ('urgent','high','medium','low')),
      due_on date,
      card_id text references cards(id) on delete set null,
      criterion_id text references criteria(id) on delete set null,
      done boolean not null default false,
      done_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`,
    `create index todos_member_created on todos (member_id, created_at desc, id desc)`,
    `create index todos_member_done_created on todos (member_id, done, created_at desc, id desc)`,
    `create index todos_member_due on todos (member_id, due_on) where due_on is not null`,
    // A criterion is mirrored by at most one todo.
    `create unique index todos_criterion on todos (criterion_id) where criterion_id is not null`,
    `create index todos_card on todos (card_id) where card_id is not null`,
  ],
};
