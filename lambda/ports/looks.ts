/** Looking again: looks the watchdog asks for itself. */

/**
 * Another look at one cluster, at a moment of the watchdog's own choosing: a suspect's deadline
 * (core/renewal-clock.ts), or a routine look between two scheduled runs. In the cloud, an SQS
 * message with a per-second delay that invokes the function; in tests, the fake clock.
 */
export interface Looks {
  /**
   * Asks for a check of `cluster` at `at` (watchdog-clock ms; now or earlier: as soon as possible),
   * naming the suspect `leases` (none: a routine look). Resolves once the request is accepted;
   * rejects when it is not (the next scheduled check still looks). Honours `signal`.
   */
  schedule(
    cluster: string,
    leases: readonly string[],
    at: number,
    signal?: AbortSignal,
  ): Promise<void>;
  /**
   * Asks for routine looks of `cluster` at each of `at` in one request (SQS: one
   * SendMessageBatch), on behalf of the scheduled run that started at `run` (each look carries it:
   * LookRequest.run); rejects when any is not accepted.
   */
  scheduleLooks(
    cluster: string,
    at: readonly number[],
    run: number,
    signal?: AbortSignal,
  ): Promise<void>;
}
