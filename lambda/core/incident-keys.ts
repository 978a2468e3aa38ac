/**
 * Incident keys: one stable key per incident, carried by every notification of it (FIRING,
 * REMINDERs, FLAPPING, RESOLVED), so that on-call tools (PagerDuty's `dedup_key`, Opsgenie's
 * `alias`, a ticket's external id) pair them and resolve on their own. Pure.
 *
 * A key is derived, never stored, from what identifies the incident: its kind (a node, the
 * watchdog's reads of the cluster, a storm), the cluster, the node's name, and the time the
 * incident opened on the watchdog's clock (`Incident.openedAt`, `WatchdogIncident.since`,
 * `StormIncident.since`). So the same incident gives the same key on every check and every
 * container, state written before keys existed gives the keys it would have given, and a new
 * incident of the same node (a new opening time) gets a new key.
 *
 * Format: `lw-<kind>-<24 lowercase hex digits>` (the first 96 bits of a SHA-256 over the parts),
 * e.g. `lw-node-3f2a9c0d1e2b4a5c6d7e8f90`: at most 36 ASCII characters, safe in a URL path, a
 * header and a file name; no cluster or node name shows through (they may be long, or private).
 */
import { createHash } from 'node:crypto';

/** The key of the incident of `kind` in `cluster` (of node `name`) that opened at `openedAt`. */
export function incidentKey(
  kind: 'node' | 'watchdog' | 'storm',
  cluster: string,
  name: string,
  openedAt: number,
): string {
  const digest = createHash('sha256')
    .update(JSON.stringify(['lease-watchdog', kind, cluster, name, openedAt]))
    .digest('hex');
  return `lw-${kind}-${digest.slice(0, 24)}`;
}
