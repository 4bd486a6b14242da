import { describe, expect, it } from 'vitest';
import {
  type StatementTimes,
  statementHeader,
  statementLabel,
  statementRows,
  timeStatement,
} from './statement-times.js';

describe('statement times of the commit profiles', () => {
  it('names a statement by its text, whatever the length of its lists', () => {
    expect(statementLabel('select *\n  from "jobs"   where "id" = ?')).toBe('select * from "jobs" where "id" = ?');
    expect(statementLabel('select * from "teams" where "id" in (?)')).toBe('select * from "teams" where "id" in (?)');
    expect(statementLabel('select * from "teams" where "id" in (?, ?, ?)')).toBe(
      statementLabel('select * from "teams" where "id" in (?, ?)'),
    );
    expect(statementLabel('insert into "t" ("a", "b") values (?, ?), (?, ?), (?, ?)')).toBe(
      'insert into "t" ("a", "b") values (?…)…',
    );
    const long = `select ${'"column", '.repeat(40)}"last" from "jobs"`;
    const label = statementLabel(long);
    expect(label.length).toBe(110);
    expect(label.endsWith('…')).toBe(true);
  });

  it('adds each call and its time, also of a call that throws', () => {
    const times: StatementTimes = new Map();
    expect(timeStatement(times, 'COMMIT', () => 1)).toBe(1);
    timeStatement(times, 'COMMIT', () => {
      const until = performance.now() + 2;
      while (performance.now() < until) {}
    });
    expect(() =>
      timeStatement(times, 'select 1', () => {
        throw new Error('busy');
      }),
    ).toThrow('busy');
    expect(times.get('COMMIT')?.calls).toBe(2);
    expect(times.get('COMMIT')?.ms).toBeGreaterThanOrEqual(2);
    expect(times.get('select 1')?.calls).toBe(1);
  });

  it('lists the costliest statements per unit, then the rest and the total', () => {
    const times: StatementTimes = new Map([
      ['COMMIT', { calls: 20, ms: 10 }],
      ['select a', { calls: 40, ms: 4 }],
      ['select b', { calls: 10, ms: 5 }],
      ['select c', { calls: 10, ms: 1 }],
    ]);
    const rows = statementRows(times, 10, 2);
    expect(statementHeader('job')).toEqual(['Statement', 'Calls per job', 'µs per call', 'µs per job', 'Share']);
    expect(rows).toEqual([
      ['`COMMIT`', '2.00', '500.0', '1000.0', '50.0 %'],
      ['`select b`', '1.00', '500.0', '500.0', '25.0 %'],
      ['the other 2 statements', '5.00', '100.0', '500.0', '25.0 %'],
      ['**all statements**', '8.00', '250.0', '2000.0', '100.0 %'],
    ]);
    // Nothing timed: only the total row, without a share.
    expect(statementRows(new Map(), 5, 3)).toEqual([['**all statements**', '0.00', '–', '0.0', '–']]);
  });
});
