import type { SqlMigration } from '../migration.js';
import { platform } from './0001-platform.js';
import { snippets } from './0002-snippets.js';
import { work } from './0003-work.js';
import { slack } from './0004-slack.js';
import { jobs } from './0005-jobs.js';
import { slackPauses } from './0006-slack-pauses.js';
import { editing } from './0007-editing.js';
import { webSessions } from './0008-web-sessions.js';
import { snippetSlugPrefix } from './0010-snippet-slug-prefix.js';
import { slackHome } from './0011-slack-home.js';
import { snippetJson } from './0012-snippet-json.js';
import { cardJson } from './0013-card-json.js';
import { cardBoardStatus } from './0014-card-board-status.js';
import { snippetType } from './0015-snippet-type.js';
import { credentialCeilings } from './0016-credential-ceilings.js';
import { slackLinks } from './0017-slack-links.js';
import { restoreFences } from './0018-restore-fences.js';
import { events } from './0019-events.js';
import { webhooks } from './0020-webhooks.js';
import { search } from './0021-search.js';
import { eventOrder } from './0022-event-order.js';
import { channelSubscriptions } from './0025-channel-subscriptions.js';
import { comments } from './0023-comments.js';
import { github } from './0026-github.js';
import { notifications } from './0024-notifications.js';

/** Every migration, in order. Later issues append theirs. */
export const migrations: SqlMigration[] = [platform, snippets, work, slack, jobs, slackPauses, editing, webSessions, snippetSlugPrefix, slackHome, snippetJson, cardJson, cardBoardStatus, snippetType, credentialCeilings, slackLinks, restoreFences, events, webhooks, search, eventOrder, comments, notifications, channelSubscriptions, github];
