import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEND_REQUEST } from '../graphql/fixtures.js';
import { type HostTokenApp, openHostTokenApp } from './host-token-app.js';

let app: HostTokenApp;
let ana: string;
let ben: string;
let anasTeam: { id: string; members: { id: string }[] };
let bensTeam: { id: string };

beforeAll(async () => {
  app = await openHostTokenApp();
  ana = await app.token({ sub: 'host-user-ana' });
  ben = await app.token({ sub: 'host-user-ben' });
  anasTeam = await app.createTeam(ana);
  bensTeam = await app.createTeam(ben);
});
afterAll(() => app.close());

/** The errors' codes and the data of an answer, as a client branches on them. */
const shape = (answer: Awaited<ReturnType<HostTokenApp['gql']>>) => ({
  data: answer.body.data ?? null,
  codes: (answer.body.errors ?? []).map((error) => error.extensions?.code),
});

describe('one owner per end user of the host', () => {
  it("lists only each user's own teams", async () => {
    const teams = async (token: string) =>
      ((await app.gql('{ viewer { id teams { edges { node { id } } } } }', {}, token)).body.data?.viewer as object) ??
      null;
    expect(await teams(ana)).toEqual({ id: 'host-user-ana', teams: { edges: [{ node: { id: anasTeam.id } }] } });
    expect(await teams(ben)).toEqual({ id: 'host-user-ben', teams: { edges: [{ node: { id: bensTeam.id } }] } });
  });

  it("answers another user's team exactly as a team that never existed: null, and NOT_FOUND for writes", async () => {
    const query = 'query($id: ID!) { team(id: $id) { id name } }';
    expect(shape(await app.gql(query, { id: anasTeam.id }, ana)).data).toMatchObject({ team: { id: anasTeam.id } });
    expect(shape(await app.gql(query, { id: anasTeam.id }, ben))).toEqual(
      shape(await app.gql(query, { id: 'team_999999' }, ben)),
    );
    const input = { teamId: anasTeam.id, memberIds: [anasTeam.members[0]?.id], text: 'x', clientRequestId: 'ben-1' };
    expect(shape(await app.gql(SEND_REQUEST, { input }, ben)).codes).toEqual(['NOT_FOUND']);
  });

  it("refuses another user's team events over WebSocket with NOT_FOUND, and serves the owner's", async () => {
    const subscribe = async (token: string) => {
      const socket = await app.pool.raw();
      await socket.init(token);
      socket.send({
        type: 'subscribe',
        id: 's',
        payload: {
          query: 'subscription($t: ID!) { teamEvents(teamId: $t, afterSeq: 0) { seq } }',
          variables: { t: anasTeam.id },
        },
      });
      const frame = await socket.waitFor((received) => received.id === 's');
      return frame.payload as { data?: { teamEvents: { seq: number } }; errors?: { extensions?: { code?: string } }[] };
    };
    expect((await subscribe(ana)).data?.teamEvents.seq).toBe(1);
    const refused = await subscribe(ben);
    expect(refused.data).toBeUndefined();
    expect(refused.errors?.map((error) => error.extensions?.code)).toEqual(['NOT_FOUND']);
  });
});
