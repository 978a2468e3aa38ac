/**
 * Rendering a Notification as an SNS subject and a plain-text email body. Pure: the only clock
 * is `n.at` (the check's time on the watchdog's clock); no I/O.
 *
 * The pieces: subject.ts (subject and headline), body.ts (the body and fitting it into SNS's size
 * limit), node-sections.ts (the node lists), advice.ts (storm, watchdog and what-happens-next
 * prose, kubectl hints) and format.ts (times, counts, wrapping).
 */
export { BODY_MAX_BYTES, type RenderContext, renderBody } from './body.js';
export { utc } from './format.js';
export { renderSubject, SUBJECT_MAX_CHARS } from './subject.js';
