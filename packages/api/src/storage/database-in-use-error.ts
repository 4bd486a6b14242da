/**
 * Thrown by {@link import('./open-database.js').openDatabase} when another server already holds
 * the SQLite file.
 *
 * @remarks SQLite mode is one server per database file (the scheduler's fairness and the event
 * fan-out are in-process); several servers need PostgreSQL.
 */
export class DatabaseInUseError extends Error {
  /** The database file that is in use. */
  readonly file: string;

  constructor(file: string, options?: { cause?: unknown }) {
    super(
      `[agent-teams/api] The SQLite database ${file} is already in use by another Agent Teams server ` +
        '(only one server may open a SQLite file). Stop the other server, choose another --database file, ' +
        'or use PostgreSQL (--database postgres://...) to run several servers on one database.',
      options,
    );
    this.name = 'DatabaseInUseError';
    this.file = file;
  }
}
