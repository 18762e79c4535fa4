import type { Scenario } from '../scenario.js';
import { cards } from './cards.js';
import { me } from './me.js';
import { reminders } from './reminders.js';
import { snippets } from './snippets.js';

export const scenarios: Scenario[] = [me, snippets, cards, reminders];
