/**
 * How many values one answer's body may build (items, and each item's labels, taints,
 * conditions and kept arrays): the page cap bounds bytes, not what they decode to. A hostile page
 * of 64 MiB of 2-byte protobuf items decoded to 31.5 million Nodes and 2.2 GB of heap (JSON's
 * `{}` items: 1.5 GB), an out-of-memory end with no WATCHDOG. The readers count what they build
 * and give up past the cap: a `PageValuesError`, which the transport reports as an answer it
 * cannot read.
 */

/**
 * Values one body may build. A page of 500 Nodes builds ~25,000 (a Table page of 2,000 rows
 * ~16,000); a server that ignores `limit` sends a whole list in one page, and the most that fit
 * the page cap (~170,000 leases, ~13,000 Nodes with their labels) stay well below. A million
 * small objects are ~60 MB of heap: a 512 MB function survives the worst page.
 */
export const MAX_PAGE_VALUES = 1_000_000;

export class PageValuesError extends RangeError {
  override name = 'PageValuesError';

  constructor(readonly max: number) {
    super(`more than ${max.toLocaleString('en-US')} values in one answer`);
  }
}

/** A count of the values a body built, that throws once past MAX_PAGE_VALUES. */
export class ValueCount {
  private count = 0;

  add(values: number): void {
    this.count += values;
    if (this.count > MAX_PAGE_VALUES) throw new PageValuesError(MAX_PAGE_VALUES);
  }
}
