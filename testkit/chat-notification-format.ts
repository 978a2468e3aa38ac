/**
 * A strict checker of Amazon Q Developer in chat applications (formerly AWS Chatbot) custom
 * notifications, built from the format AWS documents: "Amazon Q Developer custom notifications
 * must use the following event format" (https://docs.aws.amazon.com/chatbot/latest/adminguide/custom-notifs.html,
 * "Event schema"): `version`, `source`, `id`, `content` { `textType`, `title`, `description`,
 * `nextSteps`, `keywords` }, `metadata` { `threadId`, `summary`, `eventType`, `relatedResources`,
 * `additionalContext`, `enableCustomActions` }. `version` is "1.0", `source` is "custom", and
 * `textType` is "client-markdown". A payload the service cannot read is dropped without a word (its
 * only trace is the `UnsupportedEvents` metric), so every payload the renderer makes is checked
 * here rather than by a channel.
 *
 * Beyond the documented shape, it holds the payload to what the service can show and to our own
 * bounds: no empty text where a reader expects some, well-formed UTF-16 (no lone surrogate), no
 * control character outside the description's line breaks, title and description within
 * CHAT_TITLE_MAX_CHARS / CHAT_DESCRIPTION_MAX_CHARS, and the whole message within SNS's 262,144
 * bytes (https://docs.aws.amazon.com/sns/latest/api/API_Publish.html).
 */
import {
  CHAT_DESCRIPTION_MAX_CHARS,
  CHAT_TITLE_MAX_CHARS,
} from '../lambda/adapters/notify/render/chat.js';

const ROOT = ['version', 'source', 'id', 'content', 'metadata'];
const CONTENT = ['textType', 'title', 'description', 'nextSteps', 'keywords'];
const METADATA = [
  'threadId',
  'summary',
  'eventType',
  'relatedResources',
  'additionalContext',
  'enableCustomActions',
];
const SNS_MESSAGE_MAX_BYTES = 262_144;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL_OR_NEWLINE = /[\u0000-\u001f\u007f-\u009f]/;

/** Every way `message` (an SNS Message body) departs from the custom notification format. */
export function chatFormatProblems(message: string): string[] {
  const problems: string[] = [];
  if (Buffer.byteLength(message, 'utf8') > SNS_MESSAGE_MAX_BYTES) {
    problems.push(`message: over SNS's ${SNS_MESSAGE_MAX_BYTES} bytes`);
  }
  let event: unknown;
  try {
    event = JSON.parse(message);
  } catch {
    return [...problems, 'message: not JSON'];
  }
  if (!isObject(event)) return [...problems, 'message: not a JSON object'];
  onlyKeys(event, ROOT, '', problems);
  if (event.version !== '1.0') problems.push('version: must be "1.0"');
  if (event.source !== 'custom') problems.push('source: must be "custom"');
  if ('id' in event) text(event.id, 'id', problems);
  checkContent(event.content, problems);
  if ('metadata' in event) checkMetadata(event.metadata, problems);
  return problems;
}

function checkContent(content: unknown, problems: string[]): void {
  if (!isObject(content)) {
    problems.push('content: required, an object');
    return;
  }
  onlyKeys(content, CONTENT, 'content.', problems);
  if (content.textType !== 'client-markdown') {
    problems.push('content.textType: must be "client-markdown"');
  }
  text(content.description, 'content.description', problems, {
    max: CHAT_DESCRIPTION_MAX_CHARS,
    newlines: true,
  });
  if ('title' in content) {
    text(content.title, 'content.title', problems, { max: CHAT_TITLE_MAX_CHARS });
  }
  if ('nextSteps' in content) texts(content.nextSteps, 'content.nextSteps', problems);
  if ('keywords' in content) texts(content.keywords, 'content.keywords', problems);
}

function checkMetadata(metadata: unknown, problems: string[]): void {
  if (!isObject(metadata)) {
    problems.push('metadata: an object');
    return;
  }
  onlyKeys(metadata, METADATA, 'metadata.', problems);
  for (const key of ['threadId', 'summary', 'eventType']) {
    if (key in metadata) text(metadata[key], `metadata.${key}`, problems);
  }
  if ('relatedResources' in metadata) {
    texts(metadata.relatedResources, 'metadata.relatedResources', problems);
  }
  if ('enableCustomActions' in metadata && typeof metadata.enableCustomActions !== 'boolean') {
    problems.push('metadata.enableCustomActions: a boolean');
  }
  if ('additionalContext' in metadata) {
    const context = metadata.additionalContext;
    if (!isObject(context)) problems.push('metadata.additionalContext: an object');
    else {
      for (const [key, value] of Object.entries(context)) {
        text(key, 'metadata.additionalContext key', problems);
        text(value, `metadata.additionalContext.${key}`, problems);
      }
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyKeys(
  value: Record<string, unknown>,
  allowed: readonly string[],
  path: string,
  problems: string[],
): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) problems.push(`${path}${key}: not in the format`);
  }
}

/** A non-empty, well-formed string, without control characters (but line breaks where allowed). */
function text(
  value: unknown,
  path: string,
  problems: string[],
  options: { max?: number; newlines?: boolean } = {},
): void {
  if (typeof value !== 'string' || value.trim() === '') {
    problems.push(`${path}: a non-empty string`);
    return;
  }
  if (!value.isWellFormed()) problems.push(`${path}: a lone surrogate`);
  if ((options.newlines ? CONTROL : CONTROL_OR_NEWLINE).test(value)) {
    problems.push(`${path}: a control character`);
  }
  if (options.max !== undefined && value.length > options.max) {
    problems.push(`${path}: over ${options.max} characters (${value.length})`);
  }
}

function texts(value: unknown, path: string, problems: string[]): void {
  if (!Array.isArray(value)) {
    problems.push(`${path}: an array of strings`);
    return;
  }
  value.forEach((item, i) => {
    text(item, `${path}[${i}]`, problems);
  });
}
