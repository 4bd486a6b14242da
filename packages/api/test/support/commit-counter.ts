import type { KyselyPlugin, RootOperationNode } from 'kysely';

/**
 * A Kysely plugin that counts the COMMITs, and the reads of `runtime_runs`, run through the
 * handle it is plugged into (SQLite: the store's `BEGIN IMMEDIATE … COMMIT` are raw statements).
 */
export class CommitCounter implements KyselyPlugin {
  commits = 0;
  runReads = 0;
  /** The first word of every raw statement, in order (`BEGIN`, `SAVEPOINT`, `COMMIT`, …). */
  readonly raw: string[] = [];
  transformQuery(args: { node: RootOperationNode }): RootOperationNode {
    const { node } = args;
    if (node.kind === 'RawNode') this.raw.push(node.sqlFragments.join('?').trim().split(/\s+/)[0]?.toUpperCase() ?? '');
    if (node.kind === 'RawNode' && node.sqlFragments.join('').trim().toUpperCase() === 'COMMIT') this.commits += 1;
    if (node.kind === 'SelectQueryNode' && JSON.stringify(node.from).includes('"runtime_runs"')) this.runReads += 1;
    return node;
  }
  async transformResult<R>(args: { result: R }): Promise<R> {
    return args.result;
  }
}
