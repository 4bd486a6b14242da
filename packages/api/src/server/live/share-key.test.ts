import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../../schema/index.js';
import { shareKey } from './share-key.js';

const schema = buildSchema();
const key = (query: string, variables: Record<string, unknown>, scope = 'alice') =>
  shareKey(schema, parse(query), query, null, variables, scope);

describe('shareKey', () => {
  const events = `subscription($t: ID!, $after: Int, $first: Int) { teamEvents(teamId: $t, afterSeq: $after) {
    seq team { jobs(first: $first) { totalCount } } } }`;

  it('ignores the arguments of teamEvents, which only choose the stream', () => {
    expect(key(events, { t: 'team_1', after: 3, first: 1 })).toBe(key(events, { t: 'team_2', after: 9, first: 1 }));
  });

  it('keeps variables the selection uses, the owner and the document apart', () => {
    expect(key(events, { t: 'team_1', first: 1 })).not.toBe(key(events, { t: 'team_1', first: 2 }));
    expect(key(events, { t: 'team_1', first: 1 })).not.toBe(key(events, { t: 'team_1', first: 1 }, 'bob'));
    expect(key(events, { t: 'team_1', first: 1 })).not.toBe(key(`${events} `, { t: 'team_1', first: 1 }));
  });

  it('keeps every argument of a field not marked as sharing (jobProgress)', () => {
    const progress = 'subscription($id: ID!) { jobProgress(jobId: $id) { textDelta } }';
    expect(key(progress, { id: 'job_1' })).not.toBe(key(progress, { id: 'job_2' }));
  });
});
