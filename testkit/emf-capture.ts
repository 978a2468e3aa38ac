/**
 * Captures the CloudWatch embedded-metric-format lines Powertools Metrics writes to stdout (one
 * JSON object a line, with an `_aws` directive), and lets every other write through.
 *
 *   const emf = captureEmf();
 *   ...                          // run the real handler
 *   emf.of('CheckSucceeded')     // its EMF lines
 *   emf.stop();
 */

export interface EmfDirective {
  readonly Namespace: string;
  readonly Dimensions: string[][];
  readonly Metrics: { Name: string; Unit: string }[];
}

export interface EmfLine {
  readonly _aws: { Timestamp: number; CloudWatchMetrics: EmfDirective[] };
  readonly [key: string]: unknown;
}

export interface EmfCapture {
  readonly lines: EmfLine[];
  /** The lines that carry metric `name`. */
  of(name: string): EmfLine[];
  /** Forgets the lines captured so far. */
  clear(): void;
  stop(): void;
}

export function captureEmf(): EmfCapture {
  const lines: EmfLine[] = [];
  const original = process.stdout.write;
  const write = original.bind(process.stdout);
  process.stdout.write = ((chunk: unknown, ...rest: unknown[]) => {
    // Console writes each line whole; anything else (the test runner's own protocol) goes through.
    const emf = typeof chunk === 'string' ? parseEmf(chunk.trimEnd()) : undefined;
    if (emf) {
      lines.push(emf);
      return true;
    }
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  return {
    lines,
    of: (name) => lines.filter((line) => line[name] !== undefined),
    clear: () => {
      lines.length = 0;
    },
    stop: () => {
      process.stdout.write = original;
    },
  };
}

function parseEmf(line: string): EmfLine | undefined {
  if (!line.startsWith('{') || !line.includes('"_aws"')) return undefined;
  try {
    const parsed = JSON.parse(line) as Partial<EmfLine>;
    return parsed._aws?.CloudWatchMetrics ? (parsed as EmfLine) : undefined;
  } catch {
    return undefined;
  }
}
