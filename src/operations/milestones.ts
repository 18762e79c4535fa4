import { pageOf } from '../domain/fields.js';
import {
  createMilestone,
  createMilestoneInput,
  getMilestoneStatus,
  listMilestones,
  listMilestonesInput,
  milestoneSchema,
  milestoneStatusInput,
} from '../domain/milestones.js';
import { defineOperation } from './operation.js';

export const milestoneOperations = [
  defineOperation({
    name: 'listMilestones',
    summary: 'Milestones with their status, newest first',
    group: 'milestones',
    method: 'GET',
    path: '/milestones',
    scope: 'read',
    query: listMilestonesInput,
    output: pageOf(milestoneSchema),
    run: (ctx, input) => listMilestones(ctx, input),
  }),
  defineOperation({
    name: 'createMilestone',
    summary: 'Create a sprint or deadline milestone with a ref unique in the organization',
    group: 'milestones',
    method: 'POST',
    path: '/milestones',
    scope: 'write',
    body: createMilestoneInput,
    output: milestoneSchema,
    status: 201,
    run: (ctx, input) => createMilestone(ctx, input),
  }),
  defineOperation({
    name: 'getMilestoneStatus',
    summary: 'Card counts and criteria counts (counted separately from card status) of a milestone',
    group: 'milestones',
    method: 'GET',
    path: '/milestones/{ref}/status',
    scope: 'read',
    params: milestoneStatusInput,
    output: milestoneSchema,
    run: (ctx, input) => getMilestoneStatus(ctx, input),
  }),
];
