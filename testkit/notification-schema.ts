/**
 * Validates notification documents against the published JSON Schema
 * (docs/schema/notification.v1.json) with a real JSON Schema validator (Ajv, draft 2020-12, formats
 * checked), and against the code's own declaration: a field the renderer writes but the schema
 * does not declare is an error too (the published schema is open, so Ajv alone would accept it).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { notificationDocument } from '../lambda/adapters/notify/render/document-schema.js';

const schema = JSON.parse(
  readFileSync(new URL('../docs/schema/notification.v1.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats.default(ajv);
const validate = ajv.compile(schema);

/** Asserts that `document` is a valid v1 notification document, with no undeclared field. */
export function assertValidDocument(document: unknown): void {
  const valid = validate(document);
  assert.ok(valid, `not a valid notification document: ${ajv.errorsText(validate.errors)}`);
  // z.object strips what it does not declare: a difference is an undeclared field.
  assert.deepEqual(notificationDocument.parse(document), document, 'undeclared fields');
}
