/** The terminal and environment a command runs in, and what its exit status means. */
export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly now: () => number;
  /** Aborted on Ctrl-C. */
  readonly signal: AbortSignal;
}

export const EXIT_OK = 0;
export const EXIT_ALERTING = 1;
export const EXIT_ERROR = 2;

/** `17:52:14`: the time of day (UTC) of an epoch-ms instant, for `watch` lines. */
export function timeOfDay(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}
