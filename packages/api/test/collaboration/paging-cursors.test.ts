import type { JobId, Member } from '@agent-teams/core';
import { describe, expect, it } from 'vitest';
import { type Page, STORES, setup } from './paging-stores.js';

describe.each(STORES)('paging the member read tools (%s store)', (_name, open) => {
  it('refuses a cursor replayed with other filters (CURSOR_MISMATCH) or in another team', async () => {
    const opened = await open();
    try {
      const a = await setup(opened, 1000);
      const b = await setup(opened, 1001);
      const caller = await a.send('caller', a.members[0] as Member);
      const other = await b.send('caller', b.members[0] as Member);
      for (let i = 0; i < 4; i += 1) await a.send(`ab ${i}`, a.members[1] as Member);
      const first = (await a.core.tools.invoke(caller.id, 'read_team_history', { limit: 1, query: 'ab' })) as Page;
      expect(first.next_cursor).not.toBeNull();
      const reuse = (args: Record<string, unknown>, jobId: JobId = caller.id) =>
        a.core.tools.invoke(jobId, 'read_team_history', { limit: 1, cursor: first.next_cursor, ...args });
      await expect(reuse({ query: 'AB ' })).rejects.toMatchObject({ code: 'CURSOR_MISMATCH' });
      await expect(reuse({})).rejects.toMatchObject({ code: 'CURSOR_MISMATCH' });
      await expect(reuse({ query: 'ab' }, other.id)).rejects.toMatchObject({ code: 'CURSOR_MISMATCH' });
      await expect(
        a.core.tools.invoke(caller.id, 'search_team_results', { query: 'ab', cursor: first.next_cursor }),
      ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await expect(reuse({ query: 'ab', limit: 21 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      expect(((await reuse({ query: 'ab' })) as Page).cursor_expired).toBe(false);
    } finally {
      await opened.close();
    }
  });

  it('answers an empty page with cursor_expired when the anchor left the retained record', async () => {
    const opened = await open();
    try {
      const a = await setup(opened, 2000);
      const caller = await a.send('caller', a.members[0] as Member);
      await a.send('oldest', a.members[1] as Member);
      const first = (await a.core.tools.invoke(caller.id, 'read_team_history', { limit: 1 })) as Page;
      // 100 more record messages rotate the anchor out (50 requests, each announced and completed).
      for (let i = 0; i < 50; i += 1) await a.complete(await a.send(`filler ${i}`, a.members[1] as Member), 'ok');
      const next = (await a.core.tools.invoke(caller.id, 'read_team_history', {
        limit: 1,
        cursor: first.next_cursor,
      })) as Page;
      expect(next).toEqual({ records: [], next_cursor: null, cursor_expired: true });
    } finally {
      await opened.close();
    }
  });
});
