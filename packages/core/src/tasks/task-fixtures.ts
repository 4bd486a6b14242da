import { asAgentId, asConversationId, asMemberId, asTeamId, type MemberId } from '../model/ids.js';
import { type Member, TeamStatus } from '../model/team.js';
import { asTaskId, type Task, type TaskActor } from './task.js';
import { decideTask } from './task-board.js';
import type { TaskBoard, TaskChange, TaskCommand } from './task-command.js';

/** Test fixtures of the board (not exported from the package barrel). */
export const TEAM = asTeamId('team_1');
export const NOW = '2026-01-01T00:00:00.000Z';

/** A roster member; `lead` marks the team's lead. */
export function rosterMember(n: number, opts: { lead?: boolean; retired?: boolean } = {}): Member {
  return {
    id: asMemberId(`member_${n}`),
    teamId: TEAM,
    position: n,
    name: `M${n}`,
    agentId: asAgentId('writer'),
    conversationId: asConversationId(`conversation_${n}`),
    role: null,
    isLead: opts.lead ?? false,
    retiredAt: opts.retired === true ? NOW : null,
  };
}

/** The actor of a member of the fixtures' roster (member_0 is the lead). */
export const as = (n: number): TaskActor => ({ kind: 'member', memberId: asMemberId(`member_${n}`), isLead: n === 0 });
export const PERSON: TaskActor = { kind: 'person' };
export const mid = (n: number): MemberId => asMemberId(`member_${n}`);

/** A board that applies changes the way the stores do (for tests of the pure rules). */
export class TestBoard {
  tasks: Task[] = [];
  #next = 0;
  constructor(
    readonly members: Member[] = [rosterMember(0, { lead: true }), rosterMember(1), rosterMember(2)],
    public teamStatus: TeamStatus = TeamStatus.READY,
  ) {}

  get board(): TaskBoard {
    return { teamId: TEAM, teamStatus: this.teamStatus, tasks: this.tasks, members: this.members };
  }

  /** Decides and, when it changes something, applies; returns the change or throws the error. */
  run(command: TaskCommand, actor: TaskActor = as(1)): TaskChange {
    const outcome = decideTask(this.board, command, actor, NOW);
    if (!outcome.ok) throw outcome.error;
    const { task } = outcome.value;
    if (outcome.value.changed) {
      const index = this.tasks.findIndex((t) => t.id === task.id);
      if (index === -1) this.tasks.push(task);
      else this.tasks[index] = task;
    }
    return outcome.value;
  }

  /** A create command with defaults (a new task id each time). */
  command(opts: Partial<Extract<TaskCommand, { type: 'create' }>> = {}): Extract<TaskCommand, { type: 'create' }> {
    this.#next += 1;
    return {
      type: 'create',
      id: asTaskId(`task_${this.#next}`),
      clientRequestId: null,
      title: `Task ${this.#next}`,
      details: null,
      dependsOn: [],
      writeScope: [],
      assigneeId: null,
      ...opts,
    };
  }

  /** Creates a task with defaults. */
  create(opts: Partial<Extract<TaskCommand, { type: 'create' }>> = {}, actor: TaskActor = as(1)): Task {
    return this.run(this.command(opts), actor).task;
  }
}
