import { JobKind } from '@agent-teams/core';
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { sqlCompilers } from '../../test/support/sql-compilers.js';
import type { Database } from './database-types.js';
import { literalKind, REQUEST_KIND } from './literal-kind.js';

const { sqlite, postgres } = sqlCompilers();

const count = (db: Kysely<Database>, kind: JobKind) =>
  db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('team_id', '=', 'team_1')
    .where('kind', '=', literalKind(kind))
    .compile();

describe('literalKind', () => {
  it.each(Object.values(JobKind))('writes %s into the text, leaving only the other values bound', (kind) => {
    for (const db of [sqlite, postgres]) {
      const compiled = count(db, kind);
      expect(compiled.sql).toMatch(new RegExp(`"kind" = '${kind}'$`));
      expect(compiled.parameters).toEqual(['team_1']);
    }
  });

  it('REQUEST_KIND is the request kind as a literal', () => {
    const compiled = sqlite.selectFrom('jobs').select('id').where('kind', '=', REQUEST_KIND).compile();
    expect(compiled.sql).toMatch(/"kind" = 'REQUEST'$/);
    expect(compiled.parameters).toEqual([]);
  });

  it.each(["RECEIPT' or '1' = '1", 'request', 'REQUEST ', '', 'UNKNOWN'])(
    'refuses %j: only a kind of JobKind reaches the SQL',
    (text) => {
      expect(() => literalKind(text as JobKind)).toThrow(RangeError);
    },
  );

  it('refuses what is not text at all', () => {
    for (const value of [null, undefined, 1, {}, ['REQUEST']]) {
      expect(() => literalKind(value as unknown as JobKind)).toThrow(RangeError);
    }
  });
});
