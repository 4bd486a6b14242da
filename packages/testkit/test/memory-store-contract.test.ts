import { describeTeamStoreContract, MemoryTeamStore } from '../src/index.js';

describeTeamStoreContract('in-memory', async ({ events, ids }) => {
  const store = new MemoryTeamStore({ events, ids });
  return { store, close: () => store.close() };
});
