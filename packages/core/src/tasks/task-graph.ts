import { isFinishedTask, type Task, type TaskId, type TaskWarning } from './task.js';

/**
 * The dependencies of `taskId` that would close a cycle if it depended on `dependsOn`: the first
 * path found from one of them back to `taskId`, or null when the graph stays acyclic.
 *
 * @remarks The board is acyclic before every write (each write keeps it so), so only paths through
 * the new edges can close a cycle: a depth-first search from each new dependency, over the
 * current edges of every other task, looking for `taskId`. At most 256 tasks × 32 edges.
 */
export function findCycle(
  tasks: ReadonlyMap<TaskId, Task>,
  taskId: TaskId,
  dependsOn: readonly TaskId[],
): readonly TaskId[] | null {
  const seen = new Set<TaskId>();
  const walk = (id: TaskId, path: readonly TaskId[]): readonly TaskId[] | null => {
    if (id === taskId) return path;
    if (seen.has(id)) return null;
    seen.add(id);
    for (const next of tasks.get(id)?.dependsOn ?? []) {
      const found = walk(next, [...path, next]);
      if (found !== null) return found;
    }
    return null;
  };
  for (const dep of dependsOn) {
    const found = walk(dep, [dep]);
    if (found !== null) return found;
  }
  return null;
}

/**
 * True when two write scopes overlap: the same string, or one is a path prefix of the other
 * (`src` and `src/a.ts`, never `src` and `srcx`). Trailing slashes do not matter.
 */
export function scopesOverlap(a: string, b: string): boolean {
  const x = a.replace(/\/+$/, '');
  const y = b.replace(/\/+$/, '');
  if (x === y) return true;
  const [short, long] = x.length < y.length ? [x, y] : [y, x];
  return short.length === 0 || long.startsWith(`${short}/`);
}

/** Most warnings one write answers (the first ones in board order): keeps every answer bounded. */
export const MAX_SCOPE_WARNINGS = 100;

/**
 * The warnings for `scopes` of task `taskId` against every other unfinished task: one per other
 * task and overlapping scope of it, in board order, at most {@link MAX_SCOPE_WARNINGS}.
 */
export function scopeOverlaps(
  tasks: Iterable<Task>,
  taskId: TaskId,
  scopes: readonly string[],
): readonly TaskWarning[] {
  const warnings: TaskWarning[] = [];
  for (const other of tasks) {
    if (other.id === taskId || isFinishedTask(other.status)) continue;
    for (const scope of other.writeScope) {
      if (scopes.some((mine) => scopesOverlap(mine, scope))) {
        warnings.push({ kind: 'write_scope_overlap', taskId: other.id, scope });
        if (warnings.length === MAX_SCOPE_WARNINGS) return warnings;
      }
    }
  }
  return warnings;
}
