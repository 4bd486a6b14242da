import type { CompiledQuery, Kysely, KyselyPlugin, QueryId, RootOperationNode } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../src/storage/database-types.js';

/** Every data statement run through the handles it wraps, compiled by their dialect. */
export class StatementRecorder {
  readonly statements: CompiledQuery[] = [];

  /** `db` with every statement it runs recorded once it answered (a subquery alone never runs). */
  on(db: Kysely<Database>): Kysely<Database> {
    const nodes = new WeakMap<QueryId, RootOperationNode>();
    const plugin: KyselyPlugin = {
      transformQuery: ({ node, queryId }) => {
        nodes.set(queryId, node);
        return node;
      },
      transformResult: async ({ queryId, result }) => {
        const node = nodes.get(queryId);
        if (node !== undefined && node.kind !== 'RawNode') {
          this.statements.push(db.getExecutor().compileQuery(node, queryId));
        }
        return result;
      },
    };
    return db.withPlugin(plugin);
  }

  /** The recorded statements, PostgreSQL's `$1 … $n` written as SQLite's `?`, so one text fits both. */
  get texts(): { readonly text: string; readonly parameters: readonly unknown[]; readonly sql: string }[] {
    return this.statements.map((s) => ({ text: s.sql.replace(/\$\d+/g, '?'), parameters: s.parameters, sql: s.sql }));
  }

  /** The recorded statements whose text starts with `prefix`; fails when there is none. */
  startingWith(prefix: string) {
    const found = this.texts.filter((s) => s.text.startsWith(prefix));
    expect(found, prefix).not.toEqual([]);
    return found;
  }
}
