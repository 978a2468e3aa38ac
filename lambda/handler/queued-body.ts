/**
 * The events queued messages carry (SQS bodies): a dispatched check of one cluster, or a look of
 * the watchdog's own, each body parsed by one schema, an error naming the path of what is wrong.
 */
import * as z from 'zod';
import { fieldPath } from '../settings/errors.js';
import type { InvocationEvent } from '../use-cases/invocation.js';

const leases = z.array(z.string());

/**
 * A queued body: `{ "cluster": "<name>" }` (a dispatched check: a scheduled check of that
 * cluster), or a look, `{ "cluster": "<name>", "look": { "suspects": ["<lease>", ...] } }`.
 */
const queuedBody = z.strictObject({
  cluster: z.string(),
  look: z
    .strictObject({
      suspects: leases,
      // The scheduled run that asked for a routine look; any other value is left out (the look
      // then runs, as every look did before it was carried).
      run: z.number().optional().catch(undefined),
    })
    .optional(),
  // The body of looks queued by a version before `look` (they wait up to 15 minutes).
  recheck: leases.optional(),
});

/** What a queued message asks for; throws with one line, naming where, when the body is neither. */
export function queuedEventOf(body: string): InvocationEvent {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new Error('the message body is not JSON');
  }
  const parsed = queuedBody.safeParse(value, { jitless: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.reduce<string>((path, key) => fieldPath(path, key), '') || 'the body';
    throw new Error(
      `the queued message is neither { "cluster": "<name>" } nor a look: ${at}: ${issue?.message}`,
    );
  }
  const { cluster, look, recheck } = parsed.data;
  const suspects = look?.suspects ?? recheck;
  if (suspects === undefined) return { cluster };
  return { cluster, look: look?.run === undefined ? { suspects } : { suspects, run: look.run } };
}
