/**
 * The rules of SNS's Publish that the local SNS endpoint (sns-server.ts) enforces, so that a test
 * relying on it fails when the code under test breaks them: a Publish's parameters are read into
 * a `Publication`, or the fault SNS answers is thrown.
 * - Subject: fewer than 100 characters (counted in UTF-16 units, the stricter count), no line
 *   breaks or control characters, starting with a letter, number or punctuation mark; with
 *   `asciiSubjects` printable ASCII only, as SNS documented for years and as AWS's own SNS
 *   integrations still require.
 * - Message: present, non-empty, at most 262,144 UTF-8 bytes — and the whole payload (message,
 *   subject, attribute names, types and values) too.
 * - Message attributes: at most 10, valid names, known data types, non-empty values; a
 *   String.Array value must be a JSON array (of strings, numbers, true, false or null).
 * - MessageStructure: only `json`, and then the Message must be a JSON object with a string
 *   `default` entry, and the entries of the protocols it knows must be strings.
 * - FIFO topics (ARN ending in `.fifo`): MessageGroupId required, MessageDeduplicationId required
 *   (no content-based deduplication here), both ≤ 128 characters of SNS's allowed set.
 * - Standard topics: MessageDeduplicationId is rejected.
 */
import { invalid, invalidValue, TOPIC_ARN } from './sns-query.js';

export const SNS_MAX_MESSAGE_BYTES = 262_144;
export const SNS_MAX_SUBJECT_CHARS = 99;

export interface ReceivedAttribute {
  readonly dataType: string;
  readonly stringValue?: string | undefined;
  readonly binaryValue?: string | undefined;
}

/** A Publish that keeps the rules: what SNS accepts. */
export interface Publication {
  readonly topicArn: string;
  readonly fifo: boolean;
  readonly subject?: string | undefined;
  /** What an email subscription receives: the Message, or with `MessageStructure: json` its `email` (else `default`) entry. */
  readonly message: string;
  /** The Message parameter exactly as published. */
  readonly rawMessage: string;
  /** `json` when the publish set MessageStructure. */
  readonly messageStructure?: string | undefined;
  /** With `MessageStructure: json`: the string entries of the message, by protocol key. */
  readonly structure?: Readonly<Record<string, string>> | undefined;
  readonly attributes: Readonly<Record<string, ReceivedAttribute>>;
  readonly messageGroupId?: string | undefined;
  readonly messageDeduplicationId?: string | undefined;
}

/** Reads a Publish request's parameters, or throws the fault SNS answers. */
export function readPublication(form: URLSearchParams, asciiSubjects: boolean): Publication {
  const topicArn = form.get('TopicArn') ?? form.get('TargetArn');
  if (!topicArn) {
    throw invalid(
      'Invalid parameter: TopicArn or TargetArn Reason: no value for required parameter',
    );
  }
  if (!TOPIC_ARN.test(topicArn)) throw invalid('Invalid parameter: TopicArn');
  const fifo = topicArn.endsWith('.fifo');
  const message = form.get('Message');
  if (message === null || message.length === 0) throw invalid('Invalid parameter: Empty message');
  const messageBytes = Buffer.byteLength(message, 'utf8');
  if (messageBytes > SNS_MAX_MESSAGE_BYTES) throw invalid('Invalid parameter: Message too long');

  const subject = form.get('Subject') ?? undefined;
  if (subject !== undefined) checkSubject(subject, asciiSubjects);
  const messageStructure = form.get('MessageStructure') ?? undefined;
  const structure = readStructure(messageStructure, message);
  const attributes = readAttributes(form);
  if (
    messageBytes + Buffer.byteLength(subject ?? '') + attributeBytes(attributes) >
    SNS_MAX_MESSAGE_BYTES
  ) {
    throw invalid('Invalid parameter: Message too long');
  }
  return {
    topicArn,
    fifo,
    subject,
    message: structure ? (structure.email ?? structure.default ?? message) : message,
    rawMessage: message,
    messageStructure,
    structure,
    attributes,
    ...readFifoIds(form, fifo),
  };
}

/** The FIFO parameters: both required on a FIFO topic, the deduplication id refused elsewhere. */
function readFifoIds(
  form: URLSearchParams,
  fifo: boolean,
): Pick<Publication, 'messageGroupId' | 'messageDeduplicationId'> {
  const messageGroupId = form.get('MessageGroupId') ?? undefined;
  const messageDeduplicationId = form.get('MessageDeduplicationId') ?? undefined;
  if (messageGroupId !== undefined) checkFifoId('MessageGroupId', messageGroupId);
  if (messageDeduplicationId !== undefined) {
    checkFifoId('MessageDeduplicationId', messageDeduplicationId);
  }
  if (fifo) {
    if (messageGroupId === undefined) {
      throw invalid('Invalid parameter: The MessageGroupId parameter is required for FIFO topics');
    }
    if (messageDeduplicationId === undefined) {
      throw invalid(
        'Invalid parameter: The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly',
      );
    }
  } else if (messageDeduplicationId !== undefined) {
    throw invalid(
      'Invalid parameter: MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter that is not valid for this topic type',
    );
  }
  return { messageGroupId, messageDeduplicationId };
}

function checkSubject(subject: string, ascii: boolean): void {
  const reject = (why: string) => invalid(`Invalid parameter: Subject Reason: ${why}`);
  if (subject.length === 0) throw reject('must not be empty');
  if (subject.length > SNS_MAX_SUBJECT_CHARS) {
    throw reject('must be less than 100 characters long');
  }
  if (/[\p{Cc}\u2028\u2029]/u.test(subject)) {
    throw reject('must not include line breaks or control characters');
  }
  if (!/^[\p{L}\p{N}\p{P}]/u.test(subject)) {
    throw reject('must begin with a letter, number or punctuation mark');
  }
  if (ascii && /[^\x20-\x7e]/.test(subject)) throw reject('must be ASCII text');
}

/** SNS's allowed characters for MessageGroupId and MessageDeduplicationId: printable ASCII, no space. */
function checkFifoId(name: string, value: string): void {
  if (value.length === 0 || value.length > 128 || !/^[\x21-\x7e]+$/.test(value)) {
    throw invalid(
      `Invalid parameter: ${name} Reason: must be 1 to 128 alphanumeric or punctuation characters`,
    );
  }
}

const ATTRIBUTE_TYPE = /^(String|Number|Binary|String\.Array)(\.[A-Za-z0-9_.-]+)?$/;

function isAttributeArray(value: string): boolean {
  try {
    const parsed: unknown = JSON.parse(value);
    return (
      Array.isArray(parsed) &&
      parsed.every(
        (x) =>
          x === null || typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean',
      )
    );
  } catch {
    return false;
  }
}

/** The bytes message attributes add to the payload: names, types and values. */
function attributeBytes(attributes: Readonly<Record<string, ReceivedAttribute>>): number {
  return Object.entries(attributes).reduce(
    (sum, [name, a]) =>
      sum +
      Buffer.byteLength(name) +
      Buffer.byteLength(a.dataType) +
      Buffer.byteLength(a.stringValue ?? a.binaryValue ?? ''),
    0,
  );
}

function readAttributes(form: URLSearchParams): Record<string, ReceivedAttribute> {
  const attributes: Record<string, ReceivedAttribute> = {};
  for (let i = 1; ; i++) {
    const prefix = `MessageAttributes.entry.${i}`;
    const name = form.get(`${prefix}.Name`);
    if (name === null) break;
    if (i > 10) {
      throw invalidValue('Number of message attributes [11] exceeds the allowed maximum [10].');
    }
    checkAttributeName(name);
    const dataType = form.get(`${prefix}.Value.DataType`) ?? '';
    const stringValue = form.get(`${prefix}.Value.StringValue`) ?? undefined;
    const binaryValue = form.get(`${prefix}.Value.BinaryValue`) ?? undefined;
    checkAttributeValue(name, dataType, dataType.startsWith('Binary') ? binaryValue : stringValue);
    attributes[name] = { dataType, stringValue, binaryValue };
  }
  return attributes;
}

function checkAttributeName(name: string): void {
  if (
    name.length === 0 ||
    name.length > 256 ||
    !/^[A-Za-z0-9_.-]+$/.test(name) ||
    /^(aws\.|amazon\.)/i.test(name) ||
    name.startsWith('.') ||
    name.endsWith('.') ||
    name.includes('..')
  ) {
    throw invalidValue(`The message attribute name '${name}' is invalid.`);
  }
}

function checkAttributeValue(name: string, dataType: string, value: string | undefined): void {
  if (!ATTRIBUTE_TYPE.test(dataType)) {
    throw invalidValue(
      `The message attribute '${name}' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String.`,
    );
  }
  if (value === undefined || value.length === 0) {
    throw invalidValue(
      `The message attribute '${name}' must contain non-empty message attribute value for message attribute type '${dataType.split('.')[0]}'.`,
    );
  }
  if (/[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u.test(value)) {
    throw invalidValue(`The message attribute '${name}' contains invalid characters.`);
  }
  if (dataType === 'String.Array' && !isAttributeArray(value)) {
    throw invalidValue(
      `The message attribute '${name}' with type 'String.Array' must be a JSON array of strings, numbers, true, false or null.`,
    );
  }
  if (dataType.startsWith('Number') && !/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(value)) {
    throw invalidValue(`The message attribute '${name}' with type 'Number' must be a number.`);
  }
}

/** The protocol keys SNS gives a meaning to in a JSON message structure: their values must be strings. */
const PROTOCOL_KEYS = new Set([
  'default',
  'email',
  'email-json',
  'http',
  'https',
  'sqs',
  'sms',
  'lambda',
  'firehose',
  'application',
]);

function readStructure(
  messageStructure: string | undefined,
  message: string,
): Record<string, string> | undefined {
  if (messageStructure === undefined) return undefined;
  if (messageStructure !== 'json') {
    throw invalid('Invalid parameter: MessageStructure Reason: must be json');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    throw invalid('Invalid parameter: Message Structure - JSON message body failed to parse');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw invalid('Invalid parameter: Message Structure - JSON message body failed to parse');
  }
  const entries: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value === 'string') entries[key] = value;
    else if (PROTOCOL_KEYS.has(key)) {
      throw invalid(`Invalid parameter: Message Structure - the ${key} entry must be a string`);
    }
  }
  if (entries.default === undefined) {
    throw invalid('Invalid parameter: Message Structure - No default entry in JSON message body');
  }
  return entries;
}
