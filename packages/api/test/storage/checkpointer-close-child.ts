/**
 * Run by `sqlite-checkpointer.test.ts` in its own process: enough commits to start the checkpoint
 * worker, then `close()` at the top level with nothing else keeping the process alive. Prints
 * `closed` only if close resolved (an unreferenced worker once let the process end first).
 */
import { sql } from 'kysely';
import { openDatabase } from '../../src/storage/open-database.js';
import { CHECKPOINT_EVERY_COMMITS } from '../../src/storage/sqlite-checkpointer.js';

const file = process.argv[2];
if (file === undefined) throw new Error('usage: checkpointer-close-child <file>');
const opened = await openDatabase(file);
await sql`create table t (id integer primary key, v text)`.execute(opened.db);
for (let i = 0; i < CHECKPOINT_EVERY_COMMITS * 2; i += 1) await sql`insert into t (v) values (${i})`.execute(opened.db);
await opened.close();
process.stdout.write(`closed ${JSON.stringify(opened.checkpoints?.())}\n`);
