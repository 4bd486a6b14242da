import { getNullableType, isListType, isObjectType, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../schema/index.js';
import { BOUNDED_LISTS, operationCost, PAGE_ITEMS, SIZED_BY_ARGUMENT } from './operation-cost.js';
import { REQUEST_LIMITS } from './request-limits.js';

const schema = buildSchema();
const cost = (query: string, variables: Record<string, unknown> = {}) =>
  operationCost(schema, parse(query), null, variables);

/** Three nested job lists sized by one variable: the shape that produced a 500 MB answer. */
const NESTED = [
  'query($n: Int) { team(id: "t") {',
  '  jobs(first: $n) { edges { node { text team {',
  '    jobs(first: $n) { edges { node { text team {',
  '      jobs(first: $n) { edges { node { text } } }',
  '    } } } }',
  '  } } } }',
  '} }',
].join('\n');

describe('operationCost', () => {
  it('classifies every list field and every size argument of the schema', () => {
    const unclassified: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        const key = `${type.name}.${field.name}`;
        const sizedByArg = field.args.some((arg) => arg.name === 'first' || arg.name === 'limit');
        const list = isListType(getNullableType(field.type));
        if (sizedByArg && !SIZED_BY_ARGUMENT[key]) unclassified.push(key);
        if (!sizedByArg && list && BOUNDED_LISTS[key] === undefined && !PAGE_ITEMS.has(key)) unclassified.push(key);
      }
    }
    expect(unclassified).toEqual([]);
  });

  it('counts a size given through a variable exactly as the same literal', () => {
    const literal = cost('{ team(id: "t") { jobs(first: 7) { edges { node { id } } } } }');
    const variable = cost('query($n: Int) { team(id: "t") { jobs(first: $n) { edges { node { id } } } } }', { n: 7 });
    expect(variable).toBe(literal);
    // team, jobs ×7 (jobs, edges, node, id).
    expect(literal).toBe(1 + 7 * 4);
  });

  it("counts an absent size or an unset variable as the schema's default, an unusable value as the maximum", () => {
    const full = cost('{ team(id: "t") { jobs(first: 100) { edges { node { id } } } } }');
    // Team.jobs(first: Int = 20): the resolver receives 20 when nothing is asked.
    const byDefault = cost('{ team(id: "t") { jobs(first: 20) { edges { node { id } } } } }');
    expect(cost('{ team(id: "t") { jobs { edges { node { id } } } } }')).toBe(byDefault);
    expect(cost('query($n: Int) { team(id: "t") { jobs(first: $n) { edges { node { id } } } } }')).toBe(byDefault);
    // An operation's own default for the variable is what the executor uses.
    expect(cost('query($n: Int = 7) { team(id: "t") { jobs(first: $n) { edges { node { id } } } } }')).toBe(
      cost('{ team(id: "t") { jobs(first: 7) { edges { node { id } } } } }'),
    );
    // Team.tasks(first: Int = 50) counts 50, not the page maximum of 100.
    expect(cost('{ team(id: "t") { tasks { edges { node { id } } } } }')).toBe(1 + 50 * 4);
    for (const unusable of [-1, null, '7', 1.5]) {
      expect(
        cost('query($n: Int) { team(id: "t") { jobs(first: $n) { edges { node { id } } } } }', { n: unusable }),
      ).toBe(full);
    }
    expect(cost('{ team(id: "t") { jobs(first: 100000) { edges { node { id } } } } }')).toBe(full);
  });

  it('multiplies nested lists, counts fragments and bounded lists, and ignores introspection', () => {
    expect(cost(NESTED, { n: 100 })).toBeGreaterThan(1_000_000);
    const viaFragment = cost(
      `query($n: Int) { team(id: "t") { ...J } } fragment J on Team { jobs(first: $n) { edges { node { id } } } }`,
      {
        n: 5,
      },
    );
    expect(viaFragment).toBe(1 + 5 * 4);
    expect(cost('{ team(id: "t") { members { id name } } }')).toBe(1 + 8 * 3);
    expect(cost('{ __schema { types { name fields { name } } } }')).toBe(0);
  });

  it('keeps the limit between the largest real documents and the nested-list bomb', () => {
    const teamPage = `{ team(id: "t") { id name goal members { id name status agent { title } } jobs(first: 100) {
      totalCount edges { cursor node { id kind status text error createdAt member { id name } parent { id text }
      receipt { id status } input { kind requestId question payload } result { available text truncated } } } } } }`;
    expect(cost(teamPage)).toBeLessThan(REQUEST_LIMITS.maxCost);
    expect(cost(NESTED, { n: 2 })).toBeLessThan(REQUEST_LIMITS.maxCost);
    expect(cost(NESTED, { n: 100 })).toBeGreaterThan(REQUEST_LIMITS.maxCost);
    expect(cost(NESTED)).toBeGreaterThan(REQUEST_LIMITS.maxCost);
  });

  it('reuses one document’s count only when no variable sized it, per operation name', () => {
    // One parsed document, as Yoga's parser cache hands it to every request with the same text.
    const sized = parse(NESTED);
    expect(operationCost(schema, sized, null, { n: 2 })).toBeLessThan(REQUEST_LIMITS.maxCost);
    expect(operationCost(schema, sized, null, { n: 100 })).toBeGreaterThan(REQUEST_LIMITS.maxCost);
    expect(operationCost(schema, sized, null, { n: 2 })).toBeLessThan(REQUEST_LIMITS.maxCost);
    // A variable-free size, asked again with variables that must not matter.
    const fixed = parse('{ team(id: "t") { jobs(first: 7) { edges { node { id } } } } }');
    expect([operationCost(schema, fixed, null, {}), operationCost(schema, fixed, null, { n: 100 })]).toEqual([29, 29]);
    // Two operations in one document keep their own counts, also past the names remembered.
    const two = parse(
      'query Small { team(id: "t") { id } } query Big { team(id: "t") { jobs(first: 9) { edges { node { id } } } } }',
    );
    for (let round = 0; round < 2; round += 1) {
      expect(operationCost(schema, two, 'Small', null)).toBe(2);
      expect(operationCost(schema, two, 'Big', null)).toBe(1 + 9 * 4);
      for (let i = 0; i < 20; i += 1) expect(operationCost(schema, two, `Missing${i}`, null)).toBe(0);
    }
    // The operation's own default is used when the variable is left out, and not kept for later.
    const defaulted = parse('query($n: Int = 3) { team(id: "t") { jobs(first: $n) { edges { node { id } } } } }');
    expect(operationCost(schema, defaulted, null, {})).toBe(1 + 3 * 4);
    expect(operationCost(schema, defaulted, null, { n: 5 })).toBe(1 + 5 * 4);
  });
});
