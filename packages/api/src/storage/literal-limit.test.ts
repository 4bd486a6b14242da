import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { sqlCompilers } from '../../test/support/sql-compilers.js';
import type { Database } from './database-types.js';
import { literalLimit } from './literal-limit.js';

const { sqlite, postgres } = sqlCompilers();

const newest = (db: Kysely<Database>, limit: number) =>
  db
    .selectFrom('record_messages')
    .selectAll()
    .where('team_id', '=', 'team_1')
    .orderBy('seq', 'desc')
    .limit(literalLimit(limit))
    .compile();

describe('literalLimit', () => {
  it.each([0, 1, 400, Number.MAX_SAFE_INTEGER])(
    'writes LIMIT %d into the text, leaving only the other values bound',
    (n) => {
      for (const db of [sqlite, postgres]) {
        const compiled = newest(db, n);
        expect(compiled.sql).toMatch(new RegExp(`limit ${n}$`));
        expect(compiled.parameters).toEqual(['team_1']);
      }
    },
  );

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1])(
    'refuses %d: a limit in the text is a non-negative safe integer',
    (n) => {
      expect(() => literalLimit(n)).toThrow(RangeError);
    },
  );

  it('refuses text passed off as a number, so nothing but digits reaches the SQL', () => {
    expect(() => literalLimit('1; drop table jobs' as unknown as number)).toThrow(RangeError);
    expect(() => literalLimit('10' as unknown as number)).toThrow(RangeError);
  });
});
