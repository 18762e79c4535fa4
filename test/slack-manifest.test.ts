import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { COMMAND_HANDLERS } from '../src/slack/commands.js';
import { SLACK_EVENTS } from '../src/slack/events.js';
import { CREATE_TODO_CALLBACK } from '../src/slack/todo-modal.js';
import { CREATE_CARD_CALLBACK } from '../src/slack/card-modal.js';

const manifestPath = fileURLToPath(new URL('../manifest.yml', import.meta.url));
const manifest = parse(readFileSync(manifestPath, 'utf8')) as Record<string, any>;

/**
 * Type-checks `value` against @slack/web-api's `Manifest` (the type of `apps.manifest.create`)
 * with the TypeScript compiler: a virtual file in the repository, so `@slack/web-api`
 * resolves as it does for the app. `satisfies` checks excess properties too, so a misspelt
 * key or an unknown scope or event fails. Returns the compiler's messages.
 */
function manifestTypeErrors(value: unknown): string[] {
  const file = fileURLToPath(new URL('./manifest-check.virtual.ts', import.meta.url));
  const source = [
    "import type { AppsManifestCreateArguments } from '@slack/web-api';",
    "type Manifest = AppsManifestCreateArguments['manifest'];",
    `export const manifest = ${JSON.stringify(value, null, 2)} satisfies Manifest;`,
  ].join('\n');
  const options: ts.CompilerOptions = { strict: true, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, skipLibCheck: true, types: [] };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => (name === file ? source : read(name));
  host.fileExists = (name) => name === file || exists(name);
  host.getSourceFile = (name, version, ...rest) => (name === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, ...rest));
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

describe('manifest.yml', () => {
  it("type-checks against @slack/web-api's Manifest type", () => {
    expect(manifestTypeErrors(manifest)).toEqual([]);
  }, 60_000);

  it('the type check catches a wrong manifest (an unknown scope, a misspelt key)', () => {
    const bad = structuredClone(manifest);
    bad.oauth_config.scopes.bot.push('links:reed');
    bad.features.shortcuts[0].callbackId = 'create_todo';
    const errors = manifestTypeErrors(bad).join('\n');
    expect(errors).toMatch(/links:reed/);
    expect(errors).toMatch(/callbackId/);
  }, 60_000);

  it('declares exactly the slash commands the app handles, each with a description and usage hint', () => {
    const commands = manifest.features.slash_commands as any[];
    expect(commands.map((c) => c.command).sort()).toEqual(Object.keys(COMMAND_HANDLERS).sort());
    for (const c of commands) {
      expect(c.description.length).toBeGreaterThan(10);
      expect(c.usage_hint).toBeTruthy();
      expect(c.should_escape).toBe(false);
    }
  });

  it('declares the message shortcut, the Home tab, the events the app listens to and the unfurl domain', () => {
    expect(manifest.features.shortcuts).toEqual([
      expect.objectContaining({ type: 'message', callback_id: CREATE_TODO_CALLBACK }),
      expect.objectContaining({ type: 'message', callback_id: CREATE_CARD_CALLBACK }),
    ]);
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual([...SLACK_EVENTS].sort());
    expect(manifest.features.unfurl_domains).toEqual(['tack.example.com']);
  });

  it('points every URL at /slack/events', () => {
    const urls = [
      ...manifest.features.slash_commands.map((c: any) => c.url),
      manifest.settings.interactivity.request_url,
      manifest.settings.event_subscriptions.request_url,
    ];
    expect(urls).toHaveLength(Object.keys(COMMAND_HANDLERS).length + 2);
    for (const url of urls) expect(url).toBe('https://tack.example.com/slack/events');
  });

  it('asks for the bot scopes the app uses and no others', () => {
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual([
      'channels:history',
      'chat:write',
      'commands',
      'groups:history',
      'im:history',
      'im:write',
      'links:read',
      'links:write',
      'users:read',
      'users:read.email',
    ]);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.settings.socket_mode_enabled).toBe(false);
    expect(manifest.settings.org_deploy_enabled).toBe(false);
  });
});
