import { type Exchange, makeErrorResult, makeResult, type Operation, stringifyDocument } from '@urql/core';
import { filter, fromPromise, merge, mergeMap, pipe, share, takeUntil } from 'wonka';

/** How an operation is sent: the fetch the client was given (token, abort signal). */
type Fetch = (input: string, init: RequestInit) => Promise<Response>;

async function send(operation: Operation, fetcher: Fetch) {
  try {
    const response = await fetcher(operation.context.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
      body: JSON.stringify({ query: stringifyDocument(operation.query), variables: operation.variables }),
    });
    return makeResult(operation, await response.json(), response);
  } catch (error) {
    return makeErrorResult(operation, error as Error);
  }
}

/**
 * urql's fetch exchange for what the widget sends: each query and mutation as one JSON POST, its
 * JSON answer as the result (no GET, multipart or incremental delivery, which the server's
 * answers to the widget's documents never use).
 */
export function jsonFetchExchange(fetcher: Fetch): Exchange {
  return ({ forward }) =>
    (operations$) => {
      const shared = share(operations$);
      const isFetched = (operation: Operation) => operation.kind === 'query' || operation.kind === 'mutation';
      const results = pipe(
        shared,
        filter(isFetched),
        mergeMap((operation) =>
          pipe(
            fromPromise(send(operation, fetcher)),
            takeUntil(
              pipe(
                shared,
                filter((op) => op.kind === 'teardown' && op.key === operation.key),
              ),
            ),
          ),
        ),
      );
      return merge([
        results,
        forward(
          pipe(
            shared,
            filter((op) => !isFetched(op)),
          ),
        ),
      ]);
    };
}
