import { describe } from 'vitest';
import { describeAdmissionCases } from './admission-contract-cases.js';
import { describeJobCases } from './job-contract-cases.js';
import { describeLeaseCases } from './lease-contract-cases.js';
import { describeMemberReadCases } from './member-read-contract-cases.js';
import { describeRecordCases } from './record-contract-cases.js';
import { describeRespondCases } from './respond-contract-cases.js';
import { type OpenContractStore, useStoreHarness } from './store-harness.js';
import { describeTeamCases } from './team-contract-cases.js';
import { describeUsageCases } from './usage-contract-cases.js';

/**
 * The `TeamStore` contract suite: run it against every adapter (in-memory, SQLite, PostgreSQL),
 * the way Yoga runs one suite over each server adapter.
 *
 * @param name - names the adapter in the test report.
 * @param open - opens a fresh, empty store for each test; it should wire `events` to the store's
 * event sink and may use `ids` to mint the record ids the store appends.
 */
export function describeTeamStoreContract(name: string, open: OpenContractStore): void {
  describe(`TeamStore contract: ${name}`, () => {
    const harness = useStoreHarness(open);
    describeTeamCases(harness);
    describeJobCases(harness);
    describeRespondCases(harness);
    describeAdmissionCases(harness);
    describeLeaseCases(harness);
    describeMemberReadCases(harness);
    describeRecordCases(harness);
    describeUsageCases(harness);
  });
}
