import { DomainError } from '@agent-teams/core';
import { MemoryLogger } from '@agent-teams/testkit';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createMaskError, UNEXPECTED_ERROR_MESSAGE } from './mask-error.js';

describe('createMaskError', () => {
  it('maps a DomainError wrapped by graphql-js to its code and details, keeping the path', () => {
    const logger = new MemoryLogger();
    const domain = new DomainError('INVALID_INPUT', 'too long', { field: 'name', maxChars: 80, maxBytes: 160 });
    const wrapped = new GraphQLError(domain.message, { path: ['createTeam'], originalError: domain });
    const masked = createMaskError(logger)(wrapped, '') as GraphQLError;
    expect(masked.extensions).toEqual({ field: 'name', maxChars: 80, maxBytes: 160, code: 'INVALID_INPUT' });
    expect(masked.path).toEqual(['createTeam']);
    expect(logger.entries).toEqual([]);
  });

  it('maps the teamwork codes with their details, e.g. the current revision of a stale task write', () => {
    const mask = createMaskError(new MemoryLogger());
    const stale = mask(
      new GraphQLError('stale', {
        path: ['updateTask'],
        originalError: new DomainError('TASK_STALE_REVISION', 'stale', {
          field: 'expectedRevision',
          currentRevision: 4,
        }),
      }),
      '',
    ) as GraphQLError;
    expect(stale.extensions).toEqual({ field: 'expectedRevision', currentRevision: 4, code: 'TASK_STALE_REVISION' });
    for (const code of ['LEAD_COUNT', 'NOT_LEAD', 'MEMBER_RETIRED', 'TEAM_CLOSED', 'MAILBOX_FULL'] as const) {
      expect((mask(new DomainError(code, 'x', { field: 'f' }), '') as GraphQLError).extensions).toEqual({
        field: 'f',
        code,
      });
    }
  });

  it('finds a DomainError given as the cause of another error', () => {
    const masked = createMaskError(new MemoryLogger())(
      new Error('outer', { cause: new DomainError('NOT_FOUND', 'x') }),
      '',
    ) as GraphQLError;
    expect(masked.extensions.code).toBe('NOT_FOUND');
  });

  it('sets HTTP 401 for UNAUTHENTICATED only', () => {
    const mask = createMaskError(new MemoryLogger());
    expect((mask(new DomainError('UNAUTHENTICATED', 'x'), '') as GraphQLError).extensions.http).toEqual({
      status: 401,
    });
    expect((mask(new DomainError('NOT_FOUND', 'x'), '') as GraphQLError).extensions.http).toBeUndefined();
  });

  it('keeps a DomainError code even when a detail tries to overwrite it', () => {
    const masked = createMaskError(new MemoryLogger())(
      new DomainError('NOT_FOUND', 'x', { code: 'FAKE' }),
      '',
    ) as GraphQLError;
    expect(masked.extensions.code).toBe('NOT_FOUND');
  });

  it('masks and logs any other error', () => {
    const logger = new MemoryLogger();
    const wrapped = new GraphQLError('ECONNRESET 10.0.0.1', {
      path: ['team'],
      originalError: new Error('ECONNRESET 10.0.0.1'),
    });
    const masked = createMaskError(logger)(wrapped, '') as GraphQLError;
    expect(masked.message).toBe(UNEXPECTED_ERROR_MESSAGE);
    expect(masked.extensions).toEqual({});
    expect(masked.path).toEqual(['team']);
    expect(logger.at('error')).toHaveLength(1);
  });

  it("passes graphql-js's own errors through", () => {
    const own = new GraphQLError('Variable "$id" of required type "ID!" was not provided.');
    expect(createMaskError(new MemoryLogger())(own, '')).toBe(own);
  });
});
