import type { Connection } from '@agent-teams/core';
import type { ObjectRef } from '@pothos/core';
import type { Builder, Types } from './builder.js';

/** The shape of `PageInfo`. */
export type PageInfoShape = Connection<unknown>['pageInfo'];

/** Adds `PageInfo`, shared by every connection. */
export function addPageInfo(builder: Builder): ObjectRef<Types, PageInfoShape> {
  return builder.objectRef<PageInfoShape>('PageInfo').implement({
    fields: (t) => ({
      hasNextPage: t.exposeBoolean('hasNextPage'),
      endCursor: t.exposeString('endCursor', { nullable: true }),
    }),
  });
}

/**
 * Adds a `<Name>Connection` and `<Name>Edge` pair over a core {@link Connection}.
 *
 * @remarks Hand-written rather than the relay plugin's `t.connection`: the contract's
 * `first: Int = 20` defaults and raw ids are easier to keep exact this way, and the core already
 * returns finished pages.
 */
export function addConnection<T>(
  builder: Builder,
  pageInfo: ObjectRef<Types, PageInfoShape>,
  name: string,
  node: ObjectRef<Types, T>,
  options: { totalCount?: boolean } = {},
) {
  const edge = builder.objectRef<Connection<T>['edges'][number]>(`${name}Edge`).implement({
    fields: (t) => ({
      cursor: t.exposeString('cursor'),
      // Pothos cannot see that a generic T satisfies its resolver-shape conditional type.
      node: t.field({ type: node, resolve: (parent) => parent.node as never }),
    }),
  });
  return builder.objectRef<Connection<T>>(`${name}Connection`).implement({
    fields: (t) => ({
      edges: t.field({ type: [edge], resolve: (parent) => parent.edges }),
      pageInfo: t.field({ type: pageInfo, resolve: (parent) => parent.pageInfo }),
      ...(options.totalCount
        ? { totalCount: t.int({ resolve: (parent) => parent.totalCount ?? parent.edges.length }) }
        : {}),
    }),
  });
}
