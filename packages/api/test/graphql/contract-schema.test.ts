import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  type DefinitionNode,
  type FieldDefinitionNode,
  type InputValueDefinitionNode,
  Kind,
  parse,
  print,
  printSchema,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../../src/schema/index.js';

// The repository's copy of the outside contract (docs/contract/), so the test runs in a clone with nothing beside it.
const contractPath = fileURLToPath(new URL('../../../../docs/contract/schema.contract.graphql', import.meta.url));
const committedPath = fileURLToPath(new URL('../../../../schema.graphql', import.meta.url));

type Described = { name: string; shape: string };

/** Every name-bearing part of a schema, as `Type.field(arg)` → its printed type and default. */
function inventory(sdl: string): Map<string, string> {
  const out = new Map<string, string>();
  const add = ({ name, shape }: Described) => out.set(name, shape);
  const value = (owner: string, v: InputValueDefinitionNode) =>
    add({
      name: `${owner}(${v.name.value})`,
      shape: `${print(v.type)}${v.defaultValue ? ` = ${print(v.defaultValue)}` : ''}`,
    });
  const field = (owner: string, f: FieldDefinitionNode) => {
    add({ name: `${owner}.${f.name.value}`, shape: print(f.type) });
    for (const arg of f.arguments ?? []) value(`${owner}.${f.name.value}`, arg);
  };
  for (const def of parse(sdl).definitions as DefinitionNode[]) {
    switch (def.kind) {
      case Kind.OBJECT_TYPE_DEFINITION:
      case Kind.INTERFACE_TYPE_DEFINITION:
        add({ name: def.name.value, shape: def.kind });
        for (const i of def.interfaces ?? [])
          add({ name: `${def.name.value} implements ${i.name.value}`, shape: 'yes' });
        for (const f of def.fields ?? []) field(def.name.value, f);
        break;
      case Kind.INPUT_OBJECT_TYPE_DEFINITION:
        add({ name: def.name.value, shape: def.kind });
        for (const f of def.fields ?? []) value(def.name.value, f);
        break;
      case Kind.ENUM_TYPE_DEFINITION:
        add({ name: def.name.value, shape: def.kind });
        for (const v of def.values ?? []) add({ name: `${def.name.value}::${v.name.value}`, shape: 'enum value' });
        break;
      case Kind.UNION_TYPE_DEFINITION:
        add({ name: def.name.value, shape: def.kind });
        for (const t of def.types ?? []) add({ name: `${def.name.value} | ${t.name.value}`, shape: 'member' });
        break;
      case Kind.SCALAR_TYPE_DEFINITION:
        add({ name: def.name.value, shape: def.kind });
        break;
      default:
        break;
    }
  }
  return out;
}

describe('the printed schema against the public contract', () => {
  const contract = inventory(readFileSync(contractPath, 'utf8'));
  const printed = inventory(printSchema(buildSchema()));

  it('reads a contract with every kind of definition (guards against an empty walk)', () => {
    expect(contract.get('Query.team(id)')).toBe('ID!');
    expect(contract.get('Viewer.teams(first)')).toBe('Int = 20');
    expect(contract.get('ActivityResult | ActivityPage')).toBe('member');
    expect(contract.size).toBeGreaterThan(300);
  });

  it('contains every type, field, argument, enum value, union member and interface with the same type', () => {
    const missing = [...contract].filter(([name, shape]) => printed.get(name) !== shape);
    expect(missing.map(([name, shape]) => `${name}: contract ${shape}, printed ${printed.get(name)}`)).toEqual([]);
  });

  it('adds only nullable arguments or arguments with defaults to contract fields', () => {
    const added = [...printed].filter(
      ([name, shape]) => name.includes('(') && !contract.has(name) && shape.endsWith('!') && !shape.includes(' = '),
    );
    const onContractFields = added.filter(([name]) => contract.has(name.slice(0, name.indexOf('('))));
    expect(onContractFields).toEqual([]);
  });

  it('matches the committed schema.graphql (run `pnpm schema:print` after a schema change)', () => {
    expect(readFileSync(committedPath, 'utf8')).toBe(`${printSchema(buildSchema())}\n`);
  });
});
