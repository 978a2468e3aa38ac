/**
 * Where the whole bill (`npm run bench:bill`) sits in docs/COST.md: between two `cost:bill`
 * markers, right under the page's title and generator line. `npm run bench:cost` rewrites the rest
 * of the page and keeps this section as it was.
 */
export const BILL_MARK = '<!-- cost:bill -->';

/** The bill section of a page, markers included; '' when it has none. */
export function billOf(doc: string): string {
  const start = doc.indexOf(BILL_MARK);
  const end = doc.indexOf(BILL_MARK, start + BILL_MARK.length);
  return start < 0 || end < 0 ? '' : doc.slice(start, end + BILL_MARK.length);
}

/** The page with `section` (markers included) in place of its bill, or under its title. */
export function placeBill(doc: string, section: string): string {
  if (section === '') return doc;
  const old = billOf(doc);
  if (old !== '') return doc.replace(old, section);
  const generated = doc.indexOf('\n<!-- Generated');
  const at = generated < 0 ? doc.indexOf('\n') : doc.indexOf('\n', generated + 1);
  return `${doc.slice(0, at + 1)}\n${section}\n${doc.slice(at + 1)}`;
}
