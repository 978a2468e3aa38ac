import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { it } from 'node:test';
import { notificationsMarkdown, schemaJson } from '../docs/notifications.js';

it('docs/NOTIFICATIONS.md is what the code renders today (npm run docs:notifications rewrites it)', async () => {
  const committed = await readFile(new URL('../docs/NOTIFICATIONS.md', import.meta.url), 'utf8');
  assert.equal(committed, notificationsMarkdown());
});

it('docs/schema/notification.v1.json is the schema the code declares (npm run docs:notifications rewrites it)', async () => {
  const committed = await readFile(
    new URL('../docs/schema/notification.v1.json', import.meta.url),
    'utf8',
  );
  assert.equal(committed, schemaJson());
});
