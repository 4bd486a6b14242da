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
// The teamwork contract: an add-only extension of the one above, written with `extend` definitions.
const teamworkPath = fileURLToPath(new URL('../../../../docs/contract/teamwork.contract.graphql', import.meta.url));
const committedPath = fileURLToPath(new URL('../../../../schema.graphql', import.meta.url));

type Described = { name: string; shape: string };

/** The kinds that define a type (and so name it); an `extend` of a type does not. */
const TYPE_DEFINITIONS = new Set<string>([
  Kind.OBJECT_TYPE_DEFINITION,
  Kind.INTERFACE_TYPE_DEFINITION,
  Kind.INPUT_OBJECT_TYPE_DEFINITION,
  Kind.ENUM_TYPE_DEFINITION,
  Kind.UNION_TYPE_DEFINITION,
  Kind.SCALAR_TYPE_DEFINITION,
]);

/**
 * Every name-bearing part of a schema, as `Type.field(arg)` → its printed type and default.
 *
 * @remarks An `extend type/input/enum/interface` definition adds its fields, values and interfaces
 * under the extended type's name, but not the type itself: the schema it extends defines that.
 */
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
    if (TYPE_DEFINITIONS.has(def.kind) && 'name' in def && def.name) add({ name: def.name.value, shape: def.kind });
    switch (def.kind) {
      case Kind.OBJECT_TYPE_DEFINITION:
      case Kind.INTERFACE_TYPE_DEFINITION:
      case Kind.OBJECT_TYPE_EXTENSION:
      case Kind.INTERFACE_TYPE_EXTENSION:
        for (const i of def.interfaces ?? [])
          add({ name: `${def.name.value} implements ${i.name.value}`, shape: 'yes' });
        for (const f of def.fields ?? []) field(def.name.value, f);
        break;
      case Kind.INPUT_OBJECT_TYPE_DEFINITION:
      case Kind.INPUT_OBJECT_TYPE_EXTENSION:
        for (const f of def.fields ?? []) value(def.name.value, f);
        break;
      case Kind.ENUM_TYPE_DEFINITION:
      case Kind.ENUM_TYPE_EXTENSION:
        for (const v of def.values ?? []) add({ name: `${def.name.value}::${v.name.value}`, shape: 'enum value' });
        break;
      case Kind.UNION_TYPE_DEFINITION:
        for (const t of def.types ?? []) add({ name: `${def.name.value} | ${t.name.value}`, shape: 'member' });
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

/**
 * The names of the teamwork contract the schema does not implement yet. An entry covers itself and
 * everything inside it: `Task` covers `Task.title` and `Task implements Node`, `Team.tasks` covers
 * `Team.tasks(first)`, `TaskStatus` covers `TaskStatus::OPEN`.
 *
 * When you implement a name, delete its entry: the test below then holds it to the contract. An
 * entry may not outlive its implementation (the last test fails while the printed schema holds
 * anything an entry covers), so this list always says exactly what is left to build.
 */
const NOT_YET_IMPLEMENTED = new Set<string>([]);

/** True when the NOT_YET_IMPLEMENTED `entry` covers the inventory `name`. */
const covers = (entry: string, name: string): boolean =>
  name === entry || ['.', '(', '::', ' implements ', ' | '].some((joint) => name.startsWith(`${entry}${joint}`));

describe('the printed schema against the teamwork contract (the names implemented so far)', () => {
  const teamwork = inventory(readFileSync(teamworkPath, 'utf8'));
  const printed = inventory(printSchema(buildSchema()));
  const pending = (name: string) => [...NOT_YET_IMPLEMENTED].some((entry) => covers(entry, name));
  const implemented = [...teamwork].filter(([name]) => !pending(name));

  it('reads the extensions and the new types of the teamwork contract (guards against an empty walk)', () => {
    expect(teamwork.get('MemberInput(lead)')).toBe('Boolean = false');
    expect(teamwork.get('JobStatus::WAITING_CHANGE')).toBe('enum value');
    expect(teamwork.get('Team.tasks(first)')).toBe('Int = 50');
    expect(teamwork.get('TaskChanged implements TeamEvent')).toBe('yes');
    // Extensions add to types the base contract defines; they do not define them again.
    expect(teamwork.has('Team')).toBe(false);
    expect(implemented.map(([name]) => name)).toEqual(
      expect.arrayContaining(['MemberInput(role)', 'Member.isLead', 'Team.lead', 'TeamStatus::CLOSED']),
    );
  });

  it('contains every implemented teamwork name with the same type', () => {
    const missing = implemented.filter(([name, shape]) => printed.get(name) !== shape);
    expect(missing.map(([name, shape]) => `${name}: contract ${shape}, printed ${printed.get(name)}`)).toEqual([]);
  });

  it('lists as not yet implemented only names of the teamwork contract that the schema lacks entirely', () => {
    const stale = [...NOT_YET_IMPLEMENTED].flatMap((entry) => {
      const names = [...teamwork.keys()].filter((name) => covers(entry, name));
      if (names.length === 0) return [`${entry}: not in the teamwork contract`];
      return names.filter((name) => printed.has(name)).map((name) => `${entry}: ${name} is implemented`);
    });
    expect(stale).toEqual([]);
  });
});
