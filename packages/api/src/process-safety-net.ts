import type { Logger } from '@agent-teams/core';

/** The exit code after an escaped error (sysexits' EX_SOFTWARE): a supervisor restarts the server. */
export const ESCAPED_ERROR_EXIT_CODE = 70;

/** The part of `process` the safety net listens on. */
export interface ProcessEvents {
  on(event: 'uncaughtException', listener: (error: Error, origin: string) => void): unknown;
  on(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
  off(event: 'uncaughtException', listener: (error: Error, origin: string) => void): unknown;
  off(event: 'unhandledRejection', listener: (reason: unknown) => void): unknown;
}

/** What the safety net needs. */
export interface SafetyNetOptions {
  readonly process: ProcessEvents;
  readonly logger: Logger;
  /** Stops admitting work, lets in-flight writes finish and closes everything (the SIGTERM path). */
  readonly drain: () => Promise<void>;
  readonly exit: (code: number) => void;
  /** How long the drain may take before the process exits anyway. */
  readonly limitMs: number;
}

/**
 * Installs the last line of defence: an error that escaped every handler (an uncaught exception
 * or an unhandled rejection) is logged with its context, then the server drains exactly as on
 * SIGTERM and the process exits with {@link ESCAPED_ERROR_EXIT_CODE}, so a supervisor restarts it
 * from the database (see the process-safety-net decision record).
 *
 * @remarks Errors that are expected to happen are contained where they happen (one WebSocket
 * message closes one socket, a GraphQL error is masked, a failing job step is retried), so
 * anything reaching here is a bug whose damage is unknown: serving on would risk wrong answers.
 * The process never exits mid-write: it exits when the drain finishes, or at `limitMs` if the
 * drain hangs. Further escaped errors during the drain are logged and change nothing.
 * @returns a function that removes the listeners.
 */
export function installSafetyNet(options: SafetyNetOptions): () => void {
  const { logger } = options;
  let draining = false;
  const escaped = (kind: string, error: unknown) => {
    logger.error('an error escaped every handler; draining, then exiting for a restart', {
      kind,
      error,
      draining,
      uptimeSeconds: Math.round(process.uptime()),
    });
    if (draining) return;
    draining = true;
    const timer = setTimeout(() => {
      logger.error('the drain after an escaped error took too long; exiting', { limitMs: options.limitMs });
      options.exit(ESCAPED_ERROR_EXIT_CODE);
    }, options.limitMs);
    timer.unref();
    options.drain().then(
      () => options.exit(ESCAPED_ERROR_EXIT_CODE),
      (drainError: unknown) => {
        logger.error('the drain after an escaped error failed', { error: drainError });
        options.exit(ESCAPED_ERROR_EXIT_CODE);
      },
    );
  };
  const onException = (error: Error, origin: string) => escaped(origin, error);
  const onRejection = (reason: unknown) => escaped('unhandledRejection', reason);
  options.process.on('uncaughtException', onException);
  options.process.on('unhandledRejection', onRejection);
  return () => {
    options.process.off('uncaughtException', onException);
    options.process.off('unhandledRejection', onRejection);
  };
}
