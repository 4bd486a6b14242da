import {
  type MemberId,
  notFound,
  releasedClaims,
  type Task,
  type TaskId,
  type Tasks,
  type TeamId,
} from '@agent-teams/core';
import { type MemoryStoreState, pageOf, type TeamWrite } from './state.js';

/** Replaces or appends tasks of a team's board (board order is creation order). */
function put(state: MemoryStoreState, teamId: TeamId, tasks: readonly Task[]): void {
  const board = [...(state.tasks.get(teamId) ?? [])];
  for (const task of tasks) {
    const index = board.findIndex((t) => t.id === task.id);
    if (index === -1) board.push(task);
    else board[index] = task;
  }
  state.tasks.set(teamId, board);
}

/**
 * `Tasks.releaseClaims` inside a memory write (the retire and close writes call it in theirs).
 * @returns the released tasks.
 */
export function releaseClaimsIn(
  state: MemoryStoreState,
  write: TeamWrite,
  memberId: MemberId | null,
  reason: string,
): readonly Task[] {
  const released = releasedClaims(state.tasks.get(write.teamId) ?? [], memberId, write.now);
  put(state, write.teamId, released);
  for (const task of released) write.event('TASK_CHANGED', { taskId: task.id, reason });
  return released;
}

/** The in-memory {@link Tasks}: each method reads, decides and writes synchronously (atomic). */
export function memoryTasks(state: MemoryStoreState): Tasks {
  return {
    async changeTask({ teamId, now, decide, request = null }) {
      const stored = state.teams.get(teamId);
      if (stored === undefined) throw notFound('team');
      const recorded = request === null ? null : state.recordedToolRequest(teamId, request.key);
      const outcome = decide({
        teamId,
        teamStatus: stored.team.status,
        tasks: state.tasks.get(teamId) ?? [],
        members: state.rosters.get(teamId) ?? [],
        recorded,
      });
      if (!outcome.ok) throw outcome.error;
      const change = outcome.value;
      if (change.changed) {
        const current = (state.tasks.get(teamId) ?? []).find((t) => t.id === change.task.id);
        if ((current?.revision ?? null) !== change.previousRevision) {
          throw new Error(`[agent-teams/testkit] task ${change.task.id} moved past ${change.previousRevision}`);
        }
        const write = state.write(teamId, now);
        put(state, teamId, [change.task]);
        write.event('TASK_CHANGED', { taskId: change.task.id });
        state.commit(write);
      }
      if (request !== null && recorded === null) {
        state.recordToolRequest(teamId, request.key, { fingerprint: request.fingerprint, answerId: change.task.id });
      }
      return change;
    },
    async listTasks(teamId, filter, page) {
      const matching = (state.tasks.get(teamId) ?? []).filter(
        (t) =>
          (filter.status === null || t.status === filter.status) &&
          (filter.ownerId === null || t.ownerId === filter.ownerId),
      );
      const after = page.afterSeq;
      const items = after === null ? matching : matching.filter((t) => t.seq > after);
      return { ...pageOf(items, page.first), totalCount: matching.length };
    },
    async findTasks(taskIds: readonly TaskId[]) {
      const all = [...state.tasks.values()].flat();
      return [...new Set(taskIds)].flatMap((id) => all.find((t) => t.id === id) ?? []);
    },
    async releaseClaims(teamId, memberId, reason, now) {
      if (!state.teams.has(teamId)) return [];
      const write = state.write(teamId, now);
      const released = releaseClaimsIn(state, write, memberId, reason);
      state.commit(write);
      return released;
    },
  };
}
