// A graphql-ws peer in a process of its own, for `loop-stall.test.ts`: its answers reach the
// server while the server's event loop is stalled. Lines on stdin tell it what to send; it says
// what it saw on stdout, and writes a marker file once a commanded frame left it,
// `<marker>.<command>` (the stalled test process reads that file synchronously, since it cannot
// read this process's stdout meanwhile).
//
// argv: <ws url> <marker prefix> <token>. Commands: `init` (connection_init), `pong` (answers the
// ping it last reported). Reports: `open`, `ack`, `ping <n>`, `close <code>`. Pings after the
// first are answered at once, without a command.
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';

const [url, marker, token] = process.argv.slice(2);
const socket = new WebSocket(url, 'graphql-transport-ws', { autoPong: false, perMessageDeflate: false });
const say = (line) => process.stdout.write(`${line}\n`);
const sent = (command) => () => writeFileSync(`${marker}.${command}`, 'sent');
let pings = 0;

socket.on('open', () => say('open'));
socket.on('message', (data) => {
  if (JSON.parse(String(data)).type === 'connection_ack') say('ack');
});
socket.on('ping', () => {
  pings += 1;
  if (pings > 1) socket.pong();
  say(`ping ${pings}`);
});
socket.on('close', (code) => {
  say(`close ${code}`);
  process.exit(0);
});
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'init') {
    socket.send(
      JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } }),
      sent('init'),
    );
  } else if (line === 'pong') {
    socket.pong(undefined, undefined, sent('pong'));
  } else if (line === 'close') {
    socket.close(1000);
  }
});
