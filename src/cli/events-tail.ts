import { Command, Option } from 'commander';
import { CLI_PRODUCT } from '../domain/faces.js';
import { VERSION } from '../version.js';
import { clientTarget } from './client-env.js';
import { CliError, EXIT, exitWith } from '../client/exit.js';
import { sseFrames } from './sse-frames.js';

export interface TailOptions {
  type?: string;
  subject?: string;
  actor?: string;
  agent?: string;
  json?: boolean;
}

interface StreamedEvent {
  id: string;
  type: string;
  created_at: string;
  actor: { name: string; agent: boolean; face: string };
  subject: { type: string; id: string; ref: string | null };
  changes: Record<string, [unknown, unknown]>;
}

/** Waits before reconnecting, growing to at most this. */
const MAX_BACKOFF_MS = 10_000;

/** One line per event: when, what, which thing, who (agent or not) and through which face, and what changed. */
export function eventLine(event: StreamedEvent): string {
  const who = `${event.actor.name} (${event.actor.agent ? 'agent, ' : ''}${event.actor.face})`;
  const fields = Object.keys(event.changes);
  const what = event.subject.ref ?? event.subject.id;
  return `${event.created_at}  ${event.type}  ${what}  by ${who}${fields.length > 0 ? `  ${fields.join(', ')}` : ''}`;
}

/**
 * `tack events tail`: prints the live stream (`GET /v1/events/stream`), one line per event
 * (`--json`: the event's JSON), until interrupted. A lost connection is opened again with
 * `Last-Event-ID`, so nothing is missed; a `reset` (the id is no longer kept) is said on stderr.
 */
export async function tailEvents(options: TailOptions): Promise<void> {
  const target = clientTarget();
  const query = new URLSearchParams();
  for (const name of ['type', 'subject', 'actor', 'agent'] as const) if (options[name] !== undefined) query.set(name, options[name]);
  const url = `${target.url}/v1/events/stream${query.size > 0 ? `?${query}` : ''}`;
  let lastId: string | undefined;
  let backoff = 500;
  for (;;) {
    try {
      const headers: Record<string, string> = { authorization: `Bearer ${target.token}`, accept: 'text/event-stream', 'user-agent': `${CLI_PRODUCT}/${VERSION}` };
      if (lastId) headers['last-event-id'] = lastId;
      const res = await fetch(url, { headers });
      if (res.status >= 400 && res.status < 500) {
        const envelope = (await res.json().catch(() => ({}))) as { user_message?: string; code?: string };
        throw new CliError(envelope.user_message ?? `the server answered ${res.status}`, res.status === 401 ? EXIT.auth : EXIT.error);
      }
      if (res.status !== 200 || !res.body) throw new Error(`the server answered ${res.status}`);
      backoff = 500;
      const decoder = new TextDecoder();
      const parser = sseFrames();
      for await (const chunk of res.body) {
        for (const frame of parser.push(decoder.decode(chunk as Uint8Array, { stream: true }))) {
          if (frame.event === 'reset') process.stderr.write('tack: events were missed while disconnected (kept 90 days); refetch what you show\n');
          if (frame.event === undefined || frame.event === 'reset' || frame.data === undefined) continue;
          if (frame.id) lastId = frame.id;
          process.stdout.write(options.json ? `${frame.data}\n` : `${eventLine(JSON.parse(frame.data) as StreamedEvent)}\n`);
        }
      }
    } catch (err) {
      if (err instanceof CliError) exitWith(err);
      process.stderr.write(`tack: the stream was interrupted (${(err as Error).message}); reconnecting\n`);
    }
    await new Promise((resolve) => setTimeout(resolve, backoff));
    backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
  }
}

/** The `tail` command of the `events` group. */
export function tailCommand(): Command {
  return new Command('tail')
    .description('print events as they happen (the live stream); reconnects where it left off')
    .option('--type <types>', 'event types or prefixes ending in "." such as card., comma-separated')
    .option('--subject <id>', "one thing's events (an id), or a card's (id or ref) with its criteria and todos")
    .option('--actor <member_id>', 'only changes by this member')
    .addOption(new Option('--agent <bool>', 'only changes by agents (true) or by people (false)').choices(['true', 'false']))
    .option('--json', 'each event as one line of JSON')
    .addHelpText('after', '\nExamples:\n  tack events tail\n  tack events tail --type card.moved,card.move_refused --agent true\n  tack events tail --subject ENG-42 --json')
    .action(async (options: TailOptions) => {
      await tailEvents(options);
    });
}
