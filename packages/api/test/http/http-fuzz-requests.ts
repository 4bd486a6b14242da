import fc from 'fast-check';
import { TOKENS } from '../graphql/graphql-stack.js';

/** One request the HTTP fuzzer sends. */
export interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer | null;
  /** Send the body in pieces, without a Content-Length. */
  readonly chunked: boolean;
}

/** A selection nested `depth` levels (a depth bomb past 12). */
const deep = (depth: number) =>
  `{ viewer { teams { edges { node { ${'members { team { '.repeat(depth)}id${' } }'.repeat(depth)} } } } } }`;

/**
 * The query as URL-encoded text. `fc.anything()` makes objects without a prototype or
 * with a hostile `toString`, which `String()` throws on, so `fc.stringify` prints them;
 * lone surrogates, which `encodeURIComponent` refuses, become U+FFFD.
 */
function queryText(query: unknown): string {
  const text = typeof query === 'string' ? query : fc.stringify(query);
  return encodeURIComponent(
    text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'),
  );
}

/** Operations: valid ones, limit bombs, malformed cursors and sizes, hostile strings. */
const operations = fc.oneof(
  fc.constant({ query: '{ viewer { id } }' }),
  fc.constant({ query: '{ __schema { types { name fields { name } } } }' }),
  fc.integer({ min: 3, max: 30 }).map((depth) => ({ query: deep(depth) })),
  fc.integer({ min: 25, max: 60 }).map((n) => ({
    query: `{ ${Array.from({ length: n }, (_, i) => `a${i}: viewer { id }`).join(' ')} }`,
  })),
  fc.integer({ min: 40, max: 80 }).map((n) => ({ query: `{ viewer ${'@include(if: true) '.repeat(n)}{ id } }` })),
  fc.integer({ min: 1_500, max: 3_000 }).map((n) => ({ query: `{ ${'__typename '.repeat(n)}}` })),
  fc.oneof(fc.integer(), fc.double(), fc.string(), fc.constant(null), fc.constant(1e9)).map((n) => ({
    query: `query($n: Int) { viewer { teams(first: $n) { edges { node { jobs(first: $n) { edges { node {
      team { jobs(first: $n) { edges { node { id text } } } } } } } } } } } }`,
    variables: { n },
  })),
  fc.oneof(fc.string(), fc.base64String(), fc.constant('eyJ2IjoxfQ'), fc.constant('\u0000')).map((cursor) => ({
    query: 'query($c: String) { viewer { teams(after: $c) { edges { cursor } } inbox(after: $c) { totalCount } } }',
    variables: { c: cursor },
  })),
  fc.string({ unit: 'binary', maxLength: 30 }).map((text) => ({
    query: 'query($id: ID!, $q: String!) { team(id: $id) { id } mentionTargets(query: $q) { id } }',
    variables: { id: text, q: text },
  })),
  fc.constant({ query: 'fragment A on Viewer { ...B } fragment B on Viewer { ...A } { viewer { ...A } }' }),
  fc.constant({ query: 'subscription { inboxChanged { id } }' }),
  fc.jsonValue().map((response) => ({
    query:
      'mutation($r: JSON) { respond(input: { jobId: "job_1", response: $r, clientRequestId: "k" }) { job { id } } }',
    variables: { r: response },
  })),
  fc.string().map((query) => ({ query })),
  fc.anything().map((anything) => ({ query: anything })),
);

const bodies = fc.oneof(
  { weight: 4, arbitrary: operations.map((op) => Buffer.from(JSON.stringify(op))) },
  fc.array(operations, { minLength: 0, maxLength: 4 }).map((ops) => Buffer.from(JSON.stringify(ops))),
  fc.string().map((text) => Buffer.from(text)),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
  fc.integer({ min: 1, max: 32_000 }).map((depth) => Buffer.from(`${'['.repeat(depth)}${']'.repeat(depth)}`)),
  fc.integer({ min: 1, max: 32_000 }).map((depth) => {
    const respond =
      'mutation($r: JSON) { respond(input: { jobId: "job_1", response: $r, clientRequestId: "k" }) { job { id } } }';
    return Buffer.from(
      `{"query":${JSON.stringify(respond)},"variables":{"r":${'['.repeat(depth)}${']'.repeat(depth)}}}`,
    );
  }),
  fc
    .constantFrom(-1, 0, 1, 1024)
    .map((extra) => Buffer.from(`{"query":"{ viewer { id } }"}${' '.repeat(64 * 1024 - 30 + extra)}`)),
  operations.map((op) => Buffer.from(`query=${queryText(op.query)}`)),
);

const contentTypes = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/graphql-response+json',
  'application/graphql',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  '',
  '\u00ff;;',
);
const accepts = fc.constantFrom(
  '*/*',
  'application/json',
  'application/graphql-response+json',
  'text/event-stream',
  'multipart/mixed',
  'text/html',
  '',
);
const authorizations = fc.constantFrom(
  `Bearer ${TOKENS.alice}`,
  `Bearer ${TOKENS.bob}`,
  'Bearer tok-nobody',
  'Basic eDp5',
  `Bearer ${'x'.repeat(4000)}`,
  '',
);
const paths = fc.oneof(
  { weight: 6, arbitrary: fc.constant('/graphql') },
  operations.map((op) => `/graphql?query=${queryText(op.query)}`),
  fc.constantFrom('/', '/health', '/graphql/', '/graphql/yoga-health', '/nope', '/%00', '/graphql?query=%FF'),
);

/** Random requests, mostly GraphQL POSTs with a body. */
export const requests: fc.Arbitrary<FuzzRequest> = fc
  .record({
    method: fc.constantFrom('POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE', 'OPTIONS', 'HEAD'),
    path: paths,
    contentType: contentTypes,
    accept: accepts,
    authorization: authorizations,
    origin: fc.constantFrom('', 'https://evil.example', 'http://localhost:5173'),
    body: bodies,
    chunked: fc.boolean(),
  })
  .map(({ method, path, contentType, accept, authorization, origin, body, chunked }) => {
    const headers: Record<string, string> = {};
    if (contentType) headers['content-type'] = contentType;
    if (accept) headers.accept = accept;
    if (authorization) headers.authorization = authorization;
    if (origin) headers.origin = origin;
    const bodyless = method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
    return { method, path, headers, body: bodyless ? null : body, chunked: chunked && !bodyless };
  });
