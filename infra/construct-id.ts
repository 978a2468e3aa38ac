/** A construct id from a cluster name (which may hold '.', '_' and '-'). */
export function idFor(name: string): string {
  return name.replace(/[^A-Za-z0-9]/g, '-');
}
