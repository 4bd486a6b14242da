import { createMemoryTeamStore, describeTeamStoreContract } from '../src/index.js';

describeTeamStoreContract('in-memory', async ({ events, ids }) => {
  const store = createMemoryTeamStore({ events, ids });
  return { store, close: () => store.close() };
});
