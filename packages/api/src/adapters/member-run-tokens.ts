import { createHash, randomBytes } from 'node:crypto';
import { asJobId, type Clock, type Job, type JobId, nowTimestamp } from '@agent-teams/core';
import type { Kysely } from 'kysely';
import type { Database } from '../storage/database-types.js';

/** Prefix of every member-run token, so logs and secret scanners can tell them from owner tokens. */
export const MEMBER_RUN_TOKEN_PREFIX = 'atmr_';

/**
 * Member-run tokens: bearer credentials the server issues for one job, so an agent running outside
 * the server can call `invokeTeamTool` as that job's member conversation.
 */
export interface MemberRunTokens {
  /** Issues a new token for `job` (a job may hold several: one per turn it was started or resumed). */
  issue(job: Pick<Job, 'id' | 'teamId'>): Promise<string>;
  /** The job a token was issued for, or null for a token this server never issued. */
  jobOf(token: string): Promise<JobId | null>;
}

/** SHA-256 hex of a token: the only form that is stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The {@link MemberRunTokens} over the `member_run_tokens` table.
 *
 * @remarks A token is 32 random bytes (base64url) behind {@link MEMBER_RUN_TOKEN_PREFIX}; only its
 * SHA-256 is stored, so a database leak yields no usable token (a fast hash is enough for 256-bit
 * random secrets). Validity is not stored: the core refuses (FORBIDDEN) a token whose job has
 * finished and never lets it reach another team, so nothing here needs to expire or be revoked;
 * rows go with their team.
 */
export function createMemberRunTokens(db: Kysely<Database>, clock: Clock): MemberRunTokens {
  return {
    async issue(job) {
      const token = `${MEMBER_RUN_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
      await db
        .insertInto('member_run_tokens')
        .values({ token_hash: hashToken(token), job_id: job.id, team_id: job.teamId, created_at: nowTimestamp(clock) })
        .execute();
      return token;
    },
    async jobOf(token) {
      if (!token.startsWith(MEMBER_RUN_TOKEN_PREFIX) || token.length > 128) return null;
      const row = await db
        .selectFrom('member_run_tokens')
        .select('job_id')
        .where('token_hash', '=', hashToken(token))
        .executeTakeFirst();
      return row === undefined ? null : asJobId(row.job_id);
    },
  };
}
