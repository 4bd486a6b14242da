import WebSocket from 'ws';
import { monotonicMs } from '../live-clock.js';

const QUERY = `subscription($teamId: ID!, $afterSeq: Int) { teamEvents(teamId: $teamId, afterSeq: $afterSeq) {
  __typename seq ... on JobChanged { job { id status } } ... on RecordAppended { message { id kind text } } } }`;

/** One team to follow from a given seq. */
export interface TeamFollow {
  readonly teamId: string;
  readonly afterSeq: number;
}

/** An open graphql-transport-ws socket with one `teamEvents` subscription per team. */
export interface TeamEventsSocket {
  /** Resolves once the connection is acknowledged and every subscription was sent. */
  readonly ready: Promise<void>;
  /** Frames that were neither a `next` of ours nor protocol housekeeping. */
  readonly errors: () => number;
  close(): void;
}

/**
 * Opens one socket on `wsUrl` and subscribes to every team in `teams` (subscription id = index);
 * `onEvent(teamId, seq, at)` gets each event with its receive time on the machine's monotonic
 * clock (the servers' commit times use the same clock).
 *
 * @remarks A small client of its own (the benchmark needs a handful of sockets, not the `live`
 * benchmark's thousand): it parses each frame, answers pings, and counts anything unexpected.
 */
export function openTeamEventsSocket(
  wsUrl: string,
  token: string,
  teams: readonly TeamFollow[],
  onEvent: (teamId: string, seq: number, at: number) => void,
): TeamEventsSocket {
  const socket = new WebSocket(wsUrl, 'graphql-transport-ws', { perMessageDeflate: false });
  let errors = 0;
  const ready = new Promise<void>((resolve, reject) => {
    socket.on('open', () =>
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })),
    );
    socket.on('error', (error) => {
      errors += 1;
      reject(error);
    });
    socket.on('message', (data: Buffer) => {
      const at = monotonicMs();
      const frame = JSON.parse(data.toString()) as {
        type: string;
        id?: string;
        payload?: { data?: { teamEvents?: { seq: number } } };
      };
      if (frame.type === 'next') {
        const team = teams[Number(frame.id)];
        const seq = frame.payload?.data?.teamEvents?.seq;
        if (team && typeof seq === 'number') onEvent(team.teamId, seq, at);
        else errors += 1;
      } else if (frame.type === 'connection_ack') {
        for (const [index, team] of teams.entries()) {
          socket.send(
            JSON.stringify({
              id: String(index),
              type: 'subscribe',
              payload: { query: QUERY, variables: { teamId: team.teamId, afterSeq: team.afterSeq } },
            }),
          );
        }
        resolve();
      } else if (frame.type === 'ping') {
        socket.send('{"type":"pong"}');
      } else if (frame.type !== 'pong') {
        errors += 1;
      }
    });
  });
  return { ready, errors: () => errors, close: () => socket.terminate() };
}
