/**
 * Run by `hidden-classes.test.ts` as `node --allow-natives-syntax`: builds the objects of the hot
 * paths with their functions optimized and prints, per function, whether two objects it built
 * share their hidden class (V8's map). See `UNADMITTED` in the core for why they may not.
 */
import {
  asConversationId,
  asJobId,
  asMemberId,
  asOwnerId,
  asRecordId,
  asTeamId,
  type Core,
  type Job,
  queuedMessageJob,
  queuedReceipt,
  queuedRequest,
} from '@agent-teams/core';
import { createApiContext } from '../../src/schema/context.js';
import { jobInsertRow } from '../../src/storage/row-mappers.js';

// `%` calls parse only with `--allow-natives-syntax`, and only in code V8 compiles itself.
const natives = (body: string) =>
  new Function('f', 'a', 'b', body) as (f: unknown, a?: unknown, b?: unknown) => unknown;
const prepare = natives('%PrepareFunctionForOptimization(f)');
const optimizeNext = natives('%OptimizeFunctionOnNextCall(f)');
const sameMap = natives('return %HaveSameMap(a, b)') as (f: null, a: unknown, b: unknown) => boolean;

const NOW = '2026-12-04T07:00:00.000Z';
const team = { id: asTeamId('team_1'), owner: asOwnerId('owner_1') };
let n = 0;
const request = () => {
  n += 1;
  return {
    id: asJobId(`job_${n}`),
    recordId: asRecordId(`record_${n}`),
    memberId: asMemberId('member_1'),
    conversationId: asConversationId('conv_1'),
    requester: { memberId: null, conversationId: null },
    parentId: null,
    rootId: asJobId(`job_${n}`),
    clientKey: `key_${n}`,
    text: `Text ${n}`,
  };
};
const job = (): Job => ({ ...queuedRequest(request(), team, NOW), seq: n });

/** Calls before optimizing: the shapes seen by the literal's inline caches. */
const WARM_UP_CALLS = 5_000;

/** Builds two objects with `build` optimized (after warm-up) and says whether they share a map. */
function stable(build: () => unknown): boolean {
  prepare(build);
  // Feedback first: with too little of it, optimized code still takes the shared class.
  for (let i = 0; i < WARM_UP_CALLS; i += 1) build();
  optimizeNext(build);
  const first = build();
  const second = build();
  return sameMap(null, first, second);
}

const results = {
  queuedRequest: stable(() => queuedRequest(request(), team, NOW)),
  queuedReceipt: stable(() =>
    queuedReceipt(
      { id: asJobId(`r_${n++}`), memberId: null, conversationId: asConversationId('c'), text: 't' } as never,
      job(),
      NOW,
    ),
  ),
  queuedMessageJob: stable(() =>
    queuedMessageJob(
      { id: asJobId(`m_${n++}`), memberId: asMemberId('m'), conversationId: asConversationId('c') } as never,
      { id: `msg_${n}`, fromMemberId: asMemberId('f'), text: 't' } as never,
      team,
      NOW,
    ),
  ),
  jobInsertRow: stable(() => jobInsertRow(job(), NOW)),
  createApiContext: stable(() => createApiContext({ core: {} as Core, owner: null } as never)),
};
process.stdout.write(JSON.stringify(results));
