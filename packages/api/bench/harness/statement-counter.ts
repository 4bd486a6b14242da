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
 * @remarks A Kysely plugin that changes nothing: it counts the data statements that were run.
 * Raw SQL counts unless it only opens or ends a transaction; statements the driver issues itself
 * (PostgreSQL BEGIN/COMMIT) are not seen.
 */
export function countStatements(database: OpenedDatabase): CountedDatabase {
  let count = 0;
  // Counted when a result comes back, not when a node is seen: a query used inside another (a
  // `UNION ALL` operand) passes through `transformQuery` too, without being run on its own.
  const data = new WeakSet<object>();
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      if (DATA_STATEMENTS.has(args.node.kind) || isRawData(args.node)) data.add(args.queryId);
      return args.node;
    },
    transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      if (data.has(args.queryId)) count += 1;
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

/** A raw statement that reads or writes data (not `BEGIN`, `COMMIT` and the like). */
function isRawData(node: RootOperationNode): boolean {
  if (node.kind !== 'RawNode') return false;
  return !/^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b/i.test(node.sqlFragments.join(''));
}
