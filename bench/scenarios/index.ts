import type { Scenario } from '../scenario.js';
import { cards } from './cards.js';
import { channelThreads } from './channel-threads.js';
import { cliStartup } from './cli-startup.js';
import { me } from './me.js';
import { reminders } from './reminders.js';
import { slack } from './slack.js';
import { snippets } from './snippets.js';
import { streams } from './streams.js';
import { webhooks } from './webhooks.js';
import { writes } from './writes.js';
import { github } from './github.js';
import { notificationBurst } from './notification-burst.js';

export const scenarios: Scenario[] = [me, snippets, cards, writes, streams, webhooks, slack, reminders, channelThreads, cliStartup, github, notificationBurst];
