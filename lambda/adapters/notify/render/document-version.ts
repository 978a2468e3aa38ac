/**
 * The version string of the machine-readable notification (document-schema.ts declares the
 * document). Apart from the declaration, so that rendering a document (document.ts) does not
 * build the zod schema: only the tests and the docs validate against it.
 */
export const DOCUMENT_SCHEMA = 'lease-watchdog/notification/v1';
