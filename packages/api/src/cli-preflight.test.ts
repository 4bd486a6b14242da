import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { databaseErrorMessage, listenErrorMessage, probeListen } from './cli-preflight.js';

describe('probeListen', () => {
  it('lets go of a free port and rejects one in use with EADDRINUSE', async () => {
    await expect(probeListen('127.0.0.1', 0)).resolves.toBeUndefined();
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    try {
      await expect(probeListen('127.0.0.1', port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
      // Once let go, the same port can be listened on again at once.
      holder.close();
      await new Promise((resolve) => holder.once('close', resolve));
      await expect(probeListen('127.0.0.1', port)).resolves.toBeUndefined();
    } finally {
      holder.close();
    }
  });
});

describe('the start-up error messages', () => {
  it('name --port or --host for listen errors, and leave other errors with the same code alone', () => {
    const listen = (code: string) => Object.assign(new Error(code), { code, syscall: 'listen' });
    expect(listenErrorMessage(listen('EADDRINUSE'), '127.0.0.1', 4000)).toMatch(/^127.0.0.1:4000 is already in use/);
    expect(listenErrorMessage(listen('EADDRNOTAVAIL'), '10.9.9.9', 4000)).toMatch(/^--host 10.9.9.9 is not an address/);
    const lookup = Object.assign(new Error('x'), { code: 'ENOTFOUND', syscall: 'getaddrinfo' });
    expect(listenErrorMessage(lookup, 'nope.invalid', 0)).toMatch(/^--host nope.invalid does not resolve/);
    // A SQLite directory this user may not create is EACCES too, but not a port problem.
    expect(listenErrorMessage(Object.assign(new Error('x'), { code: 'EACCES', syscall: 'mkdir' }), 'h', 1)).toBeNull();
  });

  it('name --database for a database that cannot be opened, without repeating its URL', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(databaseErrorMessage(refused)).toBe(
      'cannot open the database given by --database (or AGENT_TEAMS_DATABASE): connect ECONNREFUSED 127.0.0.1:1',
    );
    const noDatabase = Object.assign(new Error('database "x" does not exist'), { code: '3D000' });
    expect(databaseErrorMessage(noDatabase)).toMatch(/--database .*database "x" does not exist$/);
    expect(databaseErrorMessage(Object.assign(new Error('x'), { code: 'SQLITE_NOTADB' }))).not.toBeNull();
    expect(databaseErrorMessage(new TypeError('a defect'))).toBeNull();
    expect(databaseErrorMessage(Object.assign(new Error('x'), { code: 'SQLITE_CONSTRAINT' }))).toBeNull();
  });
});
