/** How Kubernetes writes times (MicroTime, Time) and how kubectl prints ages (HumanDuration). */

/** RFC 3339 UTC with six fractional digits, as Kubernetes writes a MicroTime. */
export function formatMicroTime(us: number): string {
  const whole = Math.floor(us);
  const ms = Math.floor(whole / 1000);
  const micros = whole - ms * 1000;
  const iso = new Date(ms).toISOString(); // 2026-11-29T17:52:14.065Z
  return `${iso.slice(0, 23)}${String(micros).padStart(3, '0')}Z`;
}

/** RFC 3339 UTC with whole seconds, as Kubernetes writes a metav1.Time. */
export function formatTime(us: number): string {
  return `${new Date(Math.floor(us / 1000)).toISOString().slice(0, 19)}Z`;
}

// ----- human ages (k8s.io/apimachinery/pkg/util/duration.HumanDuration) -------------------------

export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    const d = Math.floor(hours / 24);
    return h === 0 ? `${d}d` : `${d}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const d = Math.floor(hours / 24) % 365;
    const y = Math.floor(hours / 24 / 365);
    return d === 0 ? `${y}y` : `${y}y${d}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}
