/**
 * Thrown by `migrateToLatest` when the database holds migrations this build does not know: a
 * newer Agent Teams migrated it (a downgrade, or an older server restarted beside upgraded ones).
 *
 * @remarks Nothing is read or written past that check. This build would misread what the newer
 * one stores (job kinds, phases and columns it has never heard of), so it refuses to start rather
 * than run jobs it does not understand.
 */
export class DatabaseNewerError extends Error {
  /** The migrations the database holds and this build does not know, in order. */
  readonly unknown: readonly string[];
  /** The newest migration this build knows. */
  readonly latestKnown: string;

  constructor(unknown: readonly string[], latestKnown: string) {
    super(
      `[agent-teams/api] This database was migrated by a newer version of Agent Teams: it holds ` +
        `${unknown.length === 1 ? 'migration' : 'migrations'} ${unknown.join(', ')}, which this version does not know ` +
        `(it knows up to ${latestKnown}). Run the newer version, or restore a backup taken before the upgrade.`,
    );
    this.name = 'DatabaseNewerError';
    this.unknown = unknown;
    this.latestKnown = latestKnown;
  }
}
