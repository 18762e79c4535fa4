import type { types } from '@slack/bolt';

/**
 * Slack's published Block Kit limits (api.slack.com/reference/block-kit) as a checker for
 * tests: block counts, text lengths, button and option texts, unique block and action ids,
 * and no mention or link smuggled in from user text. The checker is itself tested in
 * test/slack-block-kit-limits.test.ts.
 */

// Blocks as Slack receives them (JSON of any surface): any is the honest type here.
export type Any = Record<string, any>;

/** Every problem Slack would refuse or mangle in a surface's blocks. */
export function problems(blocks: Any[], maxBlocks: number): string[] {
  const out: string[] = [];
  const check = (ok: boolean, what: string) => void (ok || out.push(what));
  check(blocks.length <= maxBlocks, `${blocks.length} blocks > ${maxBlocks}`);
  const blockIds = blocks.map((b) => b.block_id).filter((id) => id !== undefined);
  check(new Set(blockIds).size === blockIds.length, 'block ids repeat');
  const text = (t: Any | undefined, max: number, where: string) => {
    if (!t) return;
    check(typeof t.text === 'string' && t.text.length > 0 && t.text.length <= max, `${where}: text of ${t.text?.length} characters (max ${max})`);
    // Users' < and > are escaped, so every < opens a link of ours: one cut short would show as broken text.
    if (t.type === 'mrkdwn' && typeof t.text === 'string') check(t.text.split('<').length === t.text.split('>').length, `${where}: a link cut open`);
    // A < that opens no link, mention or channel (`<ref>` in a usage line) is mangled by Slack.
    if (t.type === 'mrkdwn' && typeof t.text === 'string') check(!/<(?!https?:\/\/|mailto:|[@#!])/.test(t.text), `${where}: a < that opens no link: ${t.text.slice(0, 80)}`);
    if (t.type === 'mrkdwn') {
      // What users wrote is escaped: no mention, broadcast or link comes from it (a channel
      // link the app makes from Slack's own channel id is fine).
      check(!/<[!@]|<#(?![CG][A-Z0-9]+>)/.test(t.text), `${where}: a mention or broadcast in mrkdwn: ${t.text.slice(0, 80)}`);
      check(!t.text.includes('<https://evil.example'), `${where}: a link from user text`);
    }
  };
  const element = (e: Any, where: string) => {
    check(typeof e.action_id !== 'string' || e.action_id.length <= 255, `${where}: action_id too long`);
    if (e.type === 'button') {
      text(e.text, 75, `${where} button`);
      check(e.value === undefined || e.value.length <= 2000, `${where}: button value too long`);
      check(e.url === undefined || e.url.length <= 3000, `${where}: button url too long`);
    }
    if (e.type === 'static_select') {
      check(e.options.length <= 100, `${where}: too many options`);
      for (const o of e.options) text(o.text, 75, `${where} option`);
      text(e.placeholder, 150, `${where} placeholder`);
    }
    if (e.type === 'plain_text_input') {
      check(e.max_length === undefined || e.max_length <= 3000, `${where}: max_length`);
      check(e.initial_value === undefined || e.initial_value.length <= (e.max_length ?? 3000), `${where}: initial_value longer than max_length`);
    }
  };
  blocks.forEach((b, i) => {
    const where = `block ${i} (${b.type})`;
    check(b.block_id === undefined || b.block_id.length <= 255, `${where}: block_id too long`);
    const actionIds: string[] = [];
    if (b.type === 'section') {
      text(b.text, 3000, where);
      check((b.fields ?? []).length <= 10, `${where}: more than 10 fields`);
      for (const f of b.fields ?? []) text(f, 2000, `${where} field`);
      if (b.accessory) {
        element(b.accessory, where);
        if (b.accessory.action_id) actionIds.push(b.accessory.action_id);
      }
    }
    if (b.type === 'header') text(b.text, 150, where);
    if (b.type === 'context') {
      check(b.elements.length <= 10, `${where}: more than 10 elements`);
      for (const e of b.elements) text(e, 3000, `${where} element`);
    }
    if (b.type === 'actions') {
      check(b.elements.length <= 25, `${where}: more than 25 elements`);
      for (const e of b.elements) {
        element(e, where);
        actionIds.push(e.action_id);
      }
    }
    if (b.type === 'input') {
      text(b.label, 2000, `${where} label`);
      element(b.element, where);
    }
    // Slack: an action_id is unique within its block.
    check(new Set(actionIds).size === actionIds.length, `${where}: action ids repeat`);
  });
  return out;
}

/** Every text in blocks (sections, contexts, buttons…), added up. */
export function textLength(node: unknown): number {
  if (Array.isArray(node)) return node.reduce((n: number, x) => n + textLength(x), 0);
  if (node === null || typeof node !== 'object') return 0;
  return Object.entries(node).reduce((n, [key, value]) => n + (key === 'text' && typeof value === 'string' ? value.length : textLength(value)), 0);
}

export function message(reply: { text: string; blocks?: types.KnownBlock[] }): string[] {
  const out = problems((reply.blocks ?? []) as Any[], 50);
  // Not in Slack's reference, but chat.postMessage refuses blocks whose texts add up past
  // about 12,000 characters (msg_blocks_too_long; slackapi/bolt-js#2509).
  const total = textLength(reply.blocks ?? []);
  if (total > 12_000) out.push(`blocks' texts add up to ${total} characters`);
  if (reply.text.length > 3000 || /<[!@#]/.test(reply.text)) out.push(`fallback text: ${reply.text.slice(0, 80)}`);
  return out;
}
