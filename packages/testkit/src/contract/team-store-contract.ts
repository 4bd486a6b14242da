import type { StoreRole } from '@agent-teams/core';
import { describe } from 'vitest';
import { describeAdmissionCases } from './admission-contract.js';
import { describeAdmissionOwnerCases } from './admission-owners-contract.js';
import { describeBroadcastCases } from './broadcast-contract.js';
import { describeBudgetCases } from './budgets-contract.js';
import { describeConversationLogCases } from './conversation-log-contract.js';
import { describeEnqueueRosterCases } from './enqueue-roster-contract.js';
import { describeEventLogCases } from './event-log-contract.js';
import { describeJobErrorCodeCases } from './job-error-code-contract.js';
import { describeJobReadsCases } from './job-reads-contract.js';
import { describeJobWritesCases } from './job-writes-contract.js';
import { describeLeaseCases } from './lease-contract.js';
import { describeMailboxCases } from './mailbox-contract.js';
import { describeRecordReadsCases } from './record-reads-contract.js';
import { describeRespondCases } from './respond-contract.js';
import { type OpenContractStore, type StoreHarness, useStoreHarness } from './store-harness.js';
import { describeTasksCases } from './tasks-contract.js';
import { describeTeamLifecycleCases } from './team-lifecycle-contract.js';
import { describeTeamReadsCases } from './team-reads-contract.js';
import { describeTeamWritesCases } from './team-writes-contract.js';
import { describeInterruptTurnCases, describeKeyedTaskWriteCases } from './tool-requests-contract.js';
import { describeUsageCases } from './usage-contract.js';
import { describeWaitCases } from './wait-contract.js';

/** The contract cases of each role of the `TeamStore` port. */
export const STORE_ROLE_CASES: Readonly<Record<StoreRole, (h: () => StoreHarness) => void>> = {
  teamWrites: describeTeamWritesCases,
  teamReads: describeTeamReadsCases,
  jobWrites: (h) => {
    describeJobWritesCases(h);
    describeEnqueueRosterCases(h);
    describeRespondCases(h);
    describeBroadcastCases(h);
    describeJobErrorCodeCases(h);
  },
  jobReads: describeJobReadsCases,
  admission: (h) => {
    describeAdmissionCases(h);
    describeWaitCases(h);
    describeAdmissionOwnerCases(h);
  },
  leases: describeLeaseCases,
  recordReads: describeRecordReadsCases,
  eventLog: describeEventLogCases,
  usageLedger: describeUsageCases,
  conversationLog: describeConversationLogCases,
  mailbox: describeMailboxCases,
  tasks: (h) => {
    describeTasksCases(h);
    describeKeyedTaskWriteCases(h);
  },
  teamLifecycle: (h) => {
    describeTeamLifecycleCases(h);
    describeInterruptTurnCases(h);
  },
  budgets: describeBudgetCases,
};

/**
 * The contract suite of one store role, for an adapter that implements some roles only (or a
 * test that checks one).
 *
 * @remarks The fixtures create teams and send requests, so `open` still answers a whole store;
 * the cases exercise the one role.
 */
export function describeStoreRoleContract(role: StoreRole, name: string, open: OpenContractStore): void {
  describe(`${role} contract: ${name}`, () => {
    STORE_ROLE_CASES[role](useStoreHarness(open));
  });
}

/**
 * The `TeamStore` contract suite, every role: run it against every adapter (in-memory, SQLite,
 * PostgreSQL), the way Yoga runs one suite over each server adapter.
 *
 * @param name - names the adapter in the test report.
 * @param open - opens a fresh, empty store for each test; it should wire `events` to the store's
 * event sink and may use `ids` to mint the record ids the store appends.
 */
export function describeTeamStoreContract(name: string, open: OpenContractStore): void {
  describe(`TeamStore contract: ${name}`, () => {
    const harness = useStoreHarness(open);
    for (const cases of Object.values(STORE_ROLE_CASES)) cases(harness);
  });
}
