/**
 * The generated sections of docs/BENCHMARKS.md: each bench rewrites its own, found by its heading
 * (the heading's text before the run's date in parentheses), from that heading line up to the
 * closing `<!-- bench:… -->` marker; the markers and the reading around them stay. A bench asks
 * for its section before it measures, so that a missing heading fails at once, in one line,
 * rather than after minutes of measuring or by appending a section somewhere.
 */
import { readFile, writeFile } from 'node:fs/promises';

const FILE = new URL('../docs/BENCHMARKS.md', import.meta.url);
const NAME = 'docs/BENCHMARKS.md';
const CLOSING_MARKER = '<!-- bench:';

/** The section a heading names is not in the file (or not closed by its marker). */
export class SectionMissingError extends Error {
  override name = 'SectionMissingError';
}

/** Where the section headed `heading` lies in `lines`: its heading line and its closing marker's. */
function locate(lines: readonly string[], heading: string): { start: number; end: number } {
  const headed = (line: string) => line === heading || line.startsWith(`${heading} (`);
  const starts = lines.flatMap((line, i) => (headed(line) ? [i] : []));
  const [start] = starts;
  if (start === undefined || starts.length > 1) {
    const found = start === undefined ? 'no section' : `${starts.length} sections`;
    throw new SectionMissingError(`${NAME} has ${found} headed "${heading}" to rewrite`);
  }
  const end = lines.findIndex((line, i) => i > start && line.startsWith(CLOSING_MARKER));
  if (end < 0) {
    throw new SectionMissingError(
      `${NAME}: the section headed "${heading}" has no closing ${CLOSING_MARKER}… --> marker`,
    );
  }
  return { start, end };
}

/**
 * `text` with the section headed `heading` replaced by `section`: its lines, the heading (with
 * its date) first, each to end with a newline (a last '' leaves a blank line before the marker).
 */
export function replaceSection(text: string, heading: string, section: readonly string[]): string {
  if (!section[0]?.startsWith(heading)) {
    throw new Error(`the new section does not start with its heading "${heading}"`);
  }
  const lines = text.split('\n');
  const { start, end } = locate(lines, heading);
  return [...lines.slice(0, start), ...section, ...lines.slice(end)].join('\n');
}

/**
 * Checks now that docs/BENCHMARKS.md has the section headed `heading` (else one line on stderr
 * and exit status 1, before anything is measured) and returns what rewrites it.
 */
export async function benchmarksSection(
  heading: string,
): Promise<(section: readonly string[]) => Promise<void>> {
  try {
    locate((await readFile(FILE, 'utf8')).split('\n'), heading);
  } catch (err) {
    const message = err instanceof SectionMissingError ? err.message : `${NAME}: ${String(err)}`;
    process.stderr.write(`${message}\n`);
    process.exit(1);
  }
  return async (section) => {
    await writeFile(FILE, replaceSection(await readFile(FILE, 'utf8'), heading, section));
  };
}
