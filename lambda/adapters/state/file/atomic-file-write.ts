/**
 * Writes a file whole or not at all: the content goes to a temporary file beside it (mode 0600,
 * synced to disk), which is then renamed over it, so a reader or a crash never sees half of it.
 * The state file (file-store.ts) and the silences file (file-silence-store.ts) are written so,
 * and kept aside under one name when they cannot be read.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export async function writeFileAtomically(path: string, content: string): Promise<void> {
  const directory = dirname(path);
  await mkdir(directory, { recursive: true });
  const temporary = join(
    directory,
    `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  try {
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/** `<file>.corrupt-20261129T120000.000Z` at `now`: where a file that cannot be read is kept aside. */
export function corruptPathOf(path: string, now: number): string {
  const stamp = new Date(now).toISOString().replaceAll('-', '').replaceAll(':', '');
  return `${path}.corrupt-${stamp}`;
}
