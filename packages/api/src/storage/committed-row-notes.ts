import type {
  CommittedRows,
  Job,
  JobId,
  Member,
  MemberId,
  RecordId,
  RecordMessage,
  Team,
  TeamId,
} from '@agent-teams/core';

/**
 * The rows a write transaction stored and knows exactly, published with its events after COMMIT
 * (`CommittedRows`), so the live feeds render a local commit's events without reading them back.
 *
 * @remarks Every write of a job's columns goes through `job-writes.ts`, which notes the job as it
 * stored it; a record message is noted once appended and never changes; a team is noted as the
 * update that numbers its events returned its row (`team-event-writer.ts`), and a write of a
 * team's own columns drops that note first ({@link forgetTeam}), so a stale row is never
 * published; members are noted as `WriteScope.roster` read them under their team's lock, and a
 * retirement notes its member as it stored it. Notes taken in work rolled back to a savepoint are
 * dropped with it ({@link mark}).
 */
export class CommittedRowNotes implements CommittedRows {
  readonly jobs = new Map<JobId, Job>();
  readonly records = new Map<RecordId, RecordMessage>();
  readonly teams = new Map<TeamId, Team>();
  readonly members = new Map<MemberId, Member>();

  /**
   * Notes a job as this transaction stored it (its last write wins). A job with text the database
   * does not store as given (a lone surrogate, stored as U+FFFD) is not noted, and an earlier note
   * of it is dropped: its views read it back.
   */
  noteJob(job: Job): void {
    if (storedAsGiven(job)) this.jobs.set(job.id, job);
    else this.jobs.delete(job.id);
  }

  /**
   * Notes a record message as this transaction appended it (unless stored otherwise, as above).
   * The team's newest records noted before ({@link noteRecentRecords}) no longer are.
   */
  noteRecord(record: RecordMessage): void {
    this.forgetRecentRecords(record.teamId);
    if (!LONE_SURROGATE.test(record.text)) this.records.set(record.id, record);
  }

  /** The team's newest records noted before no longer are: this write appends one (its seq to come). */
  forgetRecentRecords(teamId: TeamId): void {
    this.#recent.delete(teamId);
  }

  /** The newest records of a team this write read under its lock, until it appends one to the team. */
  readonly #recent = new Map<TeamId, readonly RecordMessage[]>();

  /** Notes the newest records of a team as read under its lock (oldest first). */
  noteRecentRecords(teamId: TeamId, records: readonly RecordMessage[]): void {
    this.#recent.set(teamId, records);
  }

  /** What {@link noteRecentRecords} noted for the team, unless a record of it was appended since. */
  recentRecords(teamId: TeamId): readonly RecordMessage[] | undefined {
    return this.#recent.get(teamId);
  }

  /**
   * Notes a team as the database returned its row in this transaction (its last note wins). Read
   * back from the database, so stored text is what it holds (no lone-surrogate check needed).
   */
  noteTeam(team: Team): void {
    this.teams.set(team.id, team);
  }

  /**
   * Told by every write of a team's own columns (its status): the noted row is outdated until the
   * next event numbering notes it again (a write whose repeated event is not logged twice never
   * does, and its views read the team back).
   */
  forgetTeam(teamId: TeamId): void {
    this.teams.delete(teamId);
  }

  /** Rosters this write read under their team's lock, by team, until a member of the team changes. */
  readonly #rosters = new Map<TeamId, readonly Member[]>();

  /** Notes members as this transaction read them (or left them), each one's last note winning. */
  noteMembers(members: readonly Member[]): void {
    for (const member of members) this.members.set(member.id, member);
  }

  /** Notes a team's whole roster as read under its lock (in roster order), its members too. */
  noteRoster(teamId: TeamId, members: readonly Member[]): void {
    this.#rosters.set(teamId, members);
    this.noteMembers(members);
  }

  /** The roster {@link noteRoster} noted for the team, unless {@link rosterChanged} came since. */
  roster(teamId: TeamId): readonly Member[] | undefined {
    return this.#rosters.get(teamId);
  }

  /** Told by every write of a team's members (its creation, a spawn, a retirement): its noted roster is outdated. */
  rosterChanged(teamId: TeamId): void {
    this.#rosters.delete(teamId);
  }

  /** How many marks were taken: the moment a statement was sent, for {@link noteAsOf}. */
  #epoch = 0;
  /** The marks taken, each with the notes made since that belong before it. */
  readonly #marks: { readonly epoch: number; readonly kept: (() => void)[] }[] = [];

  /** The moment now, as {@link noteAsOf} takes it (a statement sent and left records it). */
  epoch(): number {
    return this.#epoch;
  }

  /**
   * Makes the notes of `note` (calls of this object's `note…` methods) as of `epoch`: those of a
   * statement sent before a {@link mark} and answered after it belong before it, so that mark's
   * rollback keeps them (PostgreSQL, `pg-held-connection.ts`: the enqueue's record and events are
   * answered after the riding admission's mark, `admission-ride.ts`).
   */
  noteAsOf(epoch: number, note: () => void): void {
    note();
    for (const mark of this.#marks) if (epoch < mark.epoch) mark.kept.push(note);
  }

  /** Remembers the notes now; the returned function drops every note taken since (but {@link noteAsOf}'s of before). */
  mark(): () => void {
    this.#epoch += 1;
    const taken = { epoch: this.#epoch, kept: [] as (() => void)[] };
    this.#marks.push(taken);
    const jobs = new Map(this.jobs);
    const records = new Map(this.records);
    const teams = new Map(this.teams);
    const members = new Map(this.members);
    // A roster read in the rolled-back work may show its member writes: forgotten with them.
    const rosters = new Map(this.#rosters);
    // Newest records read after a record was appended in the rolled-back work would show it.
    const recent = new Map(this.#recent);
    return () => {
      restore(this.jobs, jobs);
      restore(this.records, records);
      restore(this.teams, teams);
      restore(this.members, members);
      restore(this.#rosters, rosters);
      restore(this.#recent, recent);
      this.#marks.splice(this.#marks.indexOf(taken), 1);
      for (const note of taken.kept) note();
    };
  }
}

/** Sets `map` back to the entries of `saved`. */
function restore<K, V>(map: Map<K, V>, saved: ReadonlyMap<K, V>): void {
  map.clear();
  for (const [key, value] of saved) map.set(key, value);
}

/** A UTF-16 surrogate without its pair: not storable as UTF-8, so each engine replaces it. */
const LONE_SURROGATE = /\p{Cs}/u;

/** True unless a text column of the job holds a lone surrogate (its JSON columns keep escapes). */
function storedAsGiven(job: Job): boolean {
  for (const value of Object.values(job)) if (typeof value === 'string' && LONE_SURROGATE.test(value)) return false;
  return job.result === null || !LONE_SURROGATE.test(job.result.text);
}
