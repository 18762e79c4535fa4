import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMAND_HANDLERS } from '../src/slack/commands.js';

const manifest = readFileSync(new URL('../manifest.yml', import.meta.url), 'utf8');
const lines = manifest.split('\n');

/** The values of `key:` lines (a flat read; the manifest is plain block YAML). */
function values(key: string): string[] {
  return lines.flatMap((l) => {
    const m = new RegExp(`^\\s*(?:- )?${key}:\\s*(.+?)\\s*$`).exec(l);
    return m ? [m[1]!.replace(/^"(.*)"$/, '$1')] : [];
  });
}

describe('manifest.yml', () => {
  it('declares exactly the slash commands the app handles, each with a description and usage hint', () => {
    expect(values('command').sort()).toEqual(Object.keys(COMMAND_HANDLERS).sort());
    expect(values('description').length).toBeGreaterThanOrEqual(5);
    expect(values('usage_hint')).toHaveLength(4);
    expect(values('should_escape')).toEqual(['false', 'false', 'false', 'false']);
  });

  it('points every URL at /slack/events', () => {
    const urls = [...values('url'), ...values('request_url')];
    expect(urls).toHaveLength(5);
    for (const url of urls) expect(url).toBe('https://tack.example.com/slack/events');
  });

  it('asks for the bot scopes the app uses and no others', () => {
    const start = lines.findIndex((l) => /^\s+bot:\s*$/.test(l));
    const scopes: string[] = [];
    for (const line of lines.slice(start + 1)) {
      if (/^\s*#/.test(line)) continue;
      const m = /^\s+- (\S+)\s*$/.exec(line);
      if (!m) break;
      scopes.push(m[1]!);
    }
    expect(scopes.sort()).toEqual(['channels:history', 'chat:write', 'commands', 'groups:history', 'im:history', 'im:write', 'users:read', 'users:read.email']);
    expect(manifest).not.toMatch(/event_subscriptions/);
    expect(values('is_enabled')).toEqual(['true']);
    expect(values('socket_mode_enabled')).toEqual(['false']);
    expect(values('org_deploy_enabled')).toEqual(['false']);
  });
});
