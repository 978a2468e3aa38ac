/**
 * Where the whole bill (`npm run bench:bill`) sits in docs/COST.md: between two `cost:bill`
 * markers, right under the page's title and generator line. `npm run bench:cost` rewrites the rest
 * of the page and keeps this section as it was.
 */
export const BILL_MARK = '<!-- cost:bill -->';

/** The section between two `mark`s of a page, markers included; '' when it has none. */
function sectionOf(doc: string, mark: string): string {
  const start = doc.indexOf(mark);
  const end = doc.indexOf(mark, start + mark.length);
  return start < 0 || end < 0 ? '' : doc.slice(start, end + mark.length);
}

/** The bill section of a page, markers included; '' when it has none. */
export function billOf(doc: string): string {
  return sectionOf(doc, BILL_MARK);
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

/**
 * Where the fleet's bill (`npm run bench:fleet`) sits: between two `cost:fleet` markers, right
 * after the whole bill. `npm run bench:cost` and `npm run bench:bill` keep it as it was.
 */
export const FLEET_MARK = '<!-- cost:fleet -->';

/** The fleet section of a page, markers included; '' when it has none. */
export function fleetOf(doc: string): string {
  return sectionOf(doc, FLEET_MARK);
}

/** The page with `section` (markers included) in place of its fleet bill, or after the bill. */
export function placeFleet(doc: string, section: string): string {
  if (section === '') return doc;
  const old = fleetOf(doc);
  if (old !== '') return doc.replace(old, section);
  const bill = billOf(doc);
  if (bill === '') return `${doc.trimEnd()}\n\n${section}\n`;
  const at = doc.indexOf(bill) + bill.length;
  return `${doc.slice(0, at)}\n\n${section}${doc.slice(at)}`;
}
