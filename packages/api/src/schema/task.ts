import { asTeamId, type Task, type TaskChange, type TaskId, TaskStatus, type TaskWarning } from '@agent-teams/core';
import DataLoader from 'dataloader';
import type { Builder } from './builder.js';
import { type ApiContext, requireViewer } from './context.js';
import type { Refs } from './refs.js';

/** Per-operation task loaders (dependencies and warnings name tasks by id). */
const taskLoaders = new WeakMap<ApiContext, DataLoader<TaskId, Task | null>>();

/** The operation's task loader (tasks are only reached by id through an owner-scoped read). */
export function loadTask(ctx: ApiContext, id: TaskId): Promise<Task | null> {
  let loader = taskLoaders.get(ctx);
  if (loader === undefined) {
    loader = new DataLoader<TaskId, Task | null>(async (ids) => {
      const found = new Map((await ctx.core.load.tasks(ids)).map((task) => [task.id, task]));
      return ids.map((id) => found.get(id) ?? null);
    });
    taskLoaders.set(ctx, loader);
  }
  return loader.load(id);
}

/**
 * Adds the task board: `Task`, `TaskStatus`, `TaskConnection`, `TaskWarning`, `Team.tasks` and
 * the owner's mutations `createTask`, `updateTask`, `assignTask`, `cancelTask` (each answers a
 * `TaskPayload`; a stale `expectedRevision` is TASK_STALE_REVISION with
 * `extensions.currentRevision`).
 */
export function addTasks(builder: Builder, refs: Refs): void {
  const Status = builder.enumType(TaskStatus, { name: 'TaskStatus' });
  refs.Task.implement({
    interfaces: [refs.Node],
    isTypeOf: (value) => typeof value === 'object' && value !== null && 'dependsOn' in value,
    fields: (t) => ({
      id: t.exposeID('id'),
      title: t.exposeString('title'),
      details: t.exposeString('details', { nullable: true }),
      status: t.field({ type: Status, resolve: (task) => task.status }),
      revision: t.exposeInt('revision', { description: 'Starts at 1; +1 on every change.' }),
      dependsOn: t.field({
        type: [refs.Task],
        resolve: async (task, _args, ctx) =>
          (await Promise.all(task.dependsOn.map((id) => loadTask(ctx, id)))).filter((d): d is Task => d !== null),
      }),
      owner: t.field({
        type: refs.Member,
        nullable: true,
        resolve: (task, _args, ctx) => (task.ownerId === null ? null : ctx.loaders.members.load(task.ownerId)),
      }),
      writeScope: t.exposeStringList('writeScope'),
      createdBy: t.field({
        type: refs.Member,
        nullable: true,
        description: 'null when a person created it.',
        resolve: (task, _args, ctx) => (task.createdBy === null ? null : ctx.loaders.members.load(task.createdBy)),
      }),
      result: t.exposeString('result', { nullable: true }),
      createdAt: t.field({ type: 'DateTime', resolve: (task) => task.createdAt }),
      updatedAt: t.field({ type: 'DateTime', resolve: (task) => task.updatedAt }),
    }),
  });
  const Warning = builder.objectRef<TaskWarning>('TaskWarning').implement({
    fields: (t) => ({
      kind: t.exposeString('kind'),
      task: t.field({
        type: refs.Task,
        resolve: async (warning, _args, ctx) => (await loadTask(ctx, warning.taskId)) as Task,
      }),
      scope: t.exposeString('scope'),
    }),
  });
  const Payload = builder.objectRef<TaskChange>('TaskPayload').implement({
    fields: (t) => ({
      task: t.field({ type: refs.Task, resolve: (change) => change.task }),
      warnings: t.field({ type: [Warning], resolve: (change) => change.warnings }),
    }),
  });

  builder.objectField(refs.Team, 'tasks', (t) =>
    t.field({
      type: refs.TaskConnection,
      description: 'The task board in creation order; cancelled tasks stay listed.',
      args: { status: t.arg({ type: Status }), first: t.arg.int({ defaultValue: 50 }), after: t.arg.string() },
      resolve: (team, args, ctx) =>
        ctx.core.tasks.list(team, { status: args.status ?? null, first: args.first, after: args.after }),
    }),
  );

  const CreateTaskInput = builder.inputType('CreateTaskInput', {
    fields: (t) => ({
      teamId: t.id({ required: true }),
      title: t.string({ required: true }),
      details: t.string(),
      dependsOn: t.idList(),
      writeScope: t.stringList(),
      assigneeId: t.id(),
      clientRequestId: t.string({ required: true }),
    }),
  });
  const UpdateTaskInput = builder.inputType('UpdateTaskInput', {
    fields: (t) => ({
      taskId: t.id({ required: true }),
      expectedRevision: t.int({ required: true }),
      title: t.string(),
      details: t.string(),
      dependsOn: t.idList(),
      writeScope: t.stringList(),
    }),
  });
  const AssignTaskInput = builder.inputType('AssignTaskInput', {
    fields: (t) => ({
      taskId: t.id({ required: true }),
      expectedRevision: t.int({ required: true }),
      memberId: t.id({ description: 'null releases the task.' }),
    }),
  });
  const CancelTaskInput = builder.inputType('CancelTaskInput', {
    fields: (t) => ({ taskId: t.id({ required: true }), expectedRevision: t.int({ required: true }) }),
  });

  builder.mutationFields((t) => ({
    createTask: t.field({
      type: Payload,
      args: { input: t.arg({ type: CreateTaskInput, required: true }) },
      resolve: (_root, { input }, ctx) =>
        ctx.core.tasks.create(requireViewer(ctx), {
          ...input,
          teamId: asTeamId(String(input.teamId)),
          dependsOn: input.dependsOn?.map(String) ?? null,
          assigneeId: input.assigneeId == null ? null : String(input.assigneeId),
        }),
    }),
    updateTask: t.field({
      type: Payload,
      args: { input: t.arg({ type: UpdateTaskInput, required: true }) },
      resolve: (_root, { input }, ctx) =>
        ctx.core.tasks.update(requireViewer(ctx), {
          ...input,
          taskId: String(input.taskId),
          dependsOn: input.dependsOn?.map(String) ?? null,
        }),
    }),
    assignTask: t.field({
      type: Payload,
      args: { input: t.arg({ type: AssignTaskInput, required: true }) },
      resolve: (_root, { input }, ctx) =>
        ctx.core.tasks.assign(requireViewer(ctx), {
          taskId: String(input.taskId),
          expectedRevision: input.expectedRevision,
          memberId: input.memberId == null ? null : String(input.memberId),
        }),
    }),
    cancelTask: t.field({
      type: Payload,
      args: { input: t.arg({ type: CancelTaskInput, required: true }) },
      resolve: (_root, { input }, ctx) =>
        ctx.core.tasks.cancel(requireViewer(ctx), {
          taskId: String(input.taskId),
          expectedRevision: input.expectedRevision,
        }),
    }),
  }));
}
