import type { Scenario } from '../scenario.js';
import { me } from './me.js';

export const scenarios: Scenario[] = [me];
