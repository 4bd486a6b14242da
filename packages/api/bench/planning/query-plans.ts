import { planAdmissions } from '@agent-teams/core';
import {
  CompiledQuery,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type QueryId,
  type RootOperationNode,
} from 'kysely';
import { createRandomIds } from '../../src/adapters/random-ids.js';
import type { Database } from '../../src/storage/database-types.js';
import { KyselyTeamStore } from '../../src/storage/kysely-team-store.js';

/** Captures the queries a store runs (compiled later for EXPLAIN QUERY PLAN). */
class QueryCaptor implements KyselyPlugin {
  readonly nodes: { node: RootOperationNode; queryId: QueryId }[] = [];
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.nodes.push({ node: args.node, queryId: args.queryId });
    return args.node;
  }
  async transformResult<T>(args: { result: T }): Promise<T> {
    return args.result;
  }
}

export interface PlanLine {
  readonly sql: string;
  readonly plan: readonly string[];
}

/** Runs one admitting pass through a capturing store and explains every SELECT it ran. */
export async function explainPass(
  db: Kysely<Database>,
  freeze: Parameters<KyselyTeamStore['admit']>[0]['freeze'],
): Promise<PlanLine[]> {
  const captor = new QueryCaptor();
  const store = new KyselyTeamStore(db.withPlugin(captor), 'sqlite', { ids: createRandomIds() });
  await store.admit({ now: new Date().toISOString(), plan: planAdmissions, freeze });
  const seen = new Set<string>();
  const lines: PlanLine[] = [];
  for (const { node, queryId } of captor.nodes) {
    if (node.kind !== 'SelectQueryNode') continue;
    const compiled = db.getExecutor().compileQuery(node, queryId);
    if (seen.has(compiled.sql)) continue;
    seen.add(compiled.sql);
    const result = await db.executeQuery<{ id: number; parent: number; detail: string }>(
      CompiledQuery.raw(`EXPLAIN QUERY PLAN ${compiled.sql}`, [...compiled.parameters]),
    );
    const depth = new Map<number, number>([[0, -1]]);
    const plan = result.rows.map((r) => {
      const d = (depth.get(r.parent) ?? -1) + 1;
      depth.set(r.id, d);
      return `${'  '.repeat(d)}${r.detail}`;
    });
    lines.push({ sql: compiled.sql, plan });
  }
  return lines;
}

/** How a plan line reads the jobs table (null: the line is not about jobs). */
export function jobsAccess(detail: string): 'partial' | 'point' | 'other' | null {
  const m = /^(?:SCAN|SEARCH) (jobs|j|h|n)\b(.*)$/.exec(detail.trim());
  if (!m) return null;
  const rest = m[2] ?? '';
  if (/jobs_unfinished_/.test(rest)) return 'partial';
  if (/^ USING (?:INDEX sqlite_autoindex_jobs_\d+|INTEGER PRIMARY KEY) \((?:id|rowid)=\?\)/.test(rest)) return 'point';
  return 'other';
}

/** Classifies every read of `jobs` in the plans, and says in one paragraph what that means. */
export function judgePlans(plans: readonly PlanLine[], history: number): { other: number; verdict: string } {
  const accesses = plans.flatMap((p) => p.plan.map((line) => jobsAccess(line))).filter((a) => a !== null);
  const count = (kind: string) => accesses.filter((a) => a === kind).length;
  const other = count('other');
  const verdict =
    other === 0
      ? `Every read of \`jobs\` in the pass goes through a partial index on unfinished rows (\`jobs_unfinished_*\`) or is a point lookup of one job by id (${count('partial')} partial-index steps, ${count('point')} point lookups, 0 other): the ${history.toLocaleString('en-US')} finished jobs are never read or decoded.`
      : `**${other} plan step(s) read \`jobs\` without a partial index or an id lookup** (${count('partial')} partial-index steps, ${count('point')} point lookups): SQLite walks finished rows of the ${history.toLocaleString('en-US')}-job history in this pass.`;
  return { other, verdict };
}

/** The plans as a Markdown code block. */
export function renderPlans(plans: readonly PlanLine[]): string {
  return ['```text', ...plans.flatMap((p) => [`-- ${p.sql}`, ...p.plan.map((line) => `   ${line}`), '']), '```'].join(
    '\n',
  );
}
