/**
 * Why a cluster could not be read. Every failure of the reader is one of these, with one clear
 * line (`message`) that names what failed and what to check. Messages never contain secrets.
 */
import type { ClusterReadFailure } from '../core/model.js';

export type { ClusterReadFailure };

export class ClusterReadError extends Error {
  override readonly name = 'ClusterReadError';
  constructor(
    readonly failure: ClusterReadFailure,
    message: string,
    /** HTTP status code, when the API answered. */
    readonly statusCode?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isClusterReadError(error: unknown): error is ClusterReadError {
  return error instanceof ClusterReadError;
}
