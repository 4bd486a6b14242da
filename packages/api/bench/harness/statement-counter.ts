import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import type { OpenedDatabase } from '../../src/storage/open-database.js';

const DATA_STATEMENTS = new Set(['SelectQueryNode', 'InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode']);

/** A database whose SELECT/INSERT/UPDATE/DELETE statements are counted as they are run. */
export interface CountedDatabase extends OpenedDatabase {
  /** Data statements run so far through this handle (transactions included; BEGIN/COMMIT not). */
  statements(): number;
}

/**
 * Wraps an opened database so every data statement run through it (and through its
 * transactions and connections) is counted, to tell how many round trips a code path makes.
 *
 * @remarks A Kysely plugin that changes nothing: it only counts the query nodes it sees.
 * Statements the driver issues itself (PostgreSQL BEGIN/COMMIT) and raw SQL are not counted.
 */
export function countStatements(database: OpenedDatabase): CountedDatabase {
  let count = 0;
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      if (DATA_STATEMENTS.has(args.node.kind)) count += 1;
      return args.node;
    },
    transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      return Promise.resolve(args.result);
    },
  };
  return {
    db: database.db.withPlugin(plugin),
    dialect: database.dialect,
    target: database.target,
    close: () => database.close(),
    statements: () => count,
  };
}
