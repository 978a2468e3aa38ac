/**
 * One signed call of the EC2 Query API (POST, form-encoded, an XML answer), made with the SDK's
 * own SigV4 signer and the function's credential provider. Not `@aws-sdk/client-ec2`: for the two
 * read-only calls the evidence needs it would add 1,059,687 bytes to the minified bundle (236,666
 * gzipped; esbuild --bundle --minify --platform=node --format=esm, SNS client alone 465,633 vs
 * with client-ec2 1,525,320), while the signer is already in it (EKS tokens), and so is the SDK's
 * XML parser (the SNS client's; docs/BENCHMARKS.md, "The EC2 evidence call"). Bounded: the answer
 * is read up to ANSWER_MAX_BYTES, a DOCTYPE is refused before parsing, the caller's signal stops it.
 * Sent by the SDK clients' own HTTP handler (node:https), not global fetch, which loads Node's
 * undici on the FIRING path (docs/BENCHMARKS.md, same section). It follows no redirect: one would
 * re-send the body and the signed headers (the session token with them) to another host.
 */
import type { IncomingMessage } from 'node:http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { parseXML } from '@aws-sdk/xml-builder';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentityProvider, HttpRequest } from '@smithy/types';

export const EC2_API_VERSION = '2016-11-15';
export const ANSWER_MAX_BYTES = 256 * 1024;

export interface Ec2QueryOptions {
  /** Signs the calls: the credentials for the cluster (its own role, or the function's). */
  readonly credentials: AwsCredentialIdentityProvider;
  /** The endpoint of a region (default `https://ec2.<region>.amazonaws.com`); tests point it home. */
  readonly endpoint?: ((region: string) => string) | undefined;
}

/** EC2 answered with an error (`UnauthorizedOperation`, `InvalidInstanceID.NotFound`...), or not at all. */
export class Ec2QueryError extends Error {
  override readonly name = 'Ec2QueryError';
  constructor(
    /** EC2's error code, or `Unreachable`, `BadAnswer`, `NoCredentials`, `Redirect`, `HTTP <status>`. */
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function ec2Endpoint(region: string): string {
  return `https://ec2.${region}.amazonaws.com`;
}

/**
 * An element as `parseXML` leaves it: its text, or its children by name (an array when repeated;
 * an attribute is one more key, EC2's answers carry only `xmlns`).
 */
export type XmlValue = string | { readonly [name: string]: XmlValue | XmlValue[] };

/** An answer's root element: its name and what it holds. */
export interface XmlAnswer {
  readonly name: string;
  readonly value: XmlValue;
}

/** The elements named `name` in `element`. */
export function childrenNamed(element: XmlValue | undefined, name: string): XmlValue[] {
  if (element === undefined || typeof element === 'string' || !Object.hasOwn(element, name)) {
    return [];
  }
  const found = element[name] as XmlValue | XmlValue[];
  return Array.isArray(found) ? found : [found];
}

/** The trimmed text at the end of `path` (undefined when absent or empty). */
export function textAt(element: XmlValue | undefined, ...path: string[]): string | undefined {
  let current = element;
  for (const name of path) current = childrenNamed(current, name)[0];
  return typeof current === 'string' ? current.trim() || undefined : undefined;
}

/** Calls `params.Action` in `region` with `params`; resolves with the answer's root element. */
export async function ec2Query(
  region: string,
  params: Readonly<{ Action: string } & Record<string, string>>,
  options: Ec2QueryOptions,
  signal: AbortSignal,
): Promise<XmlAnswer> {
  const url = new URL((options.endpoint ?? ec2Endpoint)(region));
  const { Action, ...rest } = params;
  const body = new URLSearchParams({ Action, Version: EC2_API_VERSION, ...rest });
  const request = await signed(url, region, body.toString(), options.credentials);
  let response: Awaited<ReturnType<NodeHttpHandler['handle']>>['response'];
  try {
    // The handler's type asks for the SDK's request class; it reads only the fields signed here.
    const sent = request as Parameters<NodeHttpHandler['handle']>[0];
    ({ response } = await http.handle(sent, { abortSignal: signal }));
  } catch (error) {
    if (signal.aborted) throw error;
    throw new Ec2QueryError('Unreachable', `could not reach ${url.host}`, { cause: error });
  }
  const answer = response.body as IncomingMessage;
  if (response.statusCode >= 300 && response.statusCode < 400) {
    answer.destroy();
    throw new Ec2QueryError(
      'Redirect',
      `${url.host} answered ${response.statusCode} (a redirect), not followed: the call is signed for this endpoint alone`,
    );
  }
  return answerRoot(url, response.statusCode, await boundedText(answer));
}

/** The SDK clients' handler: node:https, keep-alive, no redirect followed. */
const http = new NodeHttpHandler();

/** The POST of `body` to `url`, signed with SigV4. */
async function signed(
  url: URL,
  region: string,
  body: string,
  credentials: AwsCredentialIdentityProvider,
): Promise<HttpRequest> {
  const signer = new SignatureV4({ service: 'ec2', region, credentials, sha256: Sha256 });
  try {
    return await signer.sign({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname || '/',
      query: {},
      headers: {
        host: url.host,
        'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
      },
      body,
    });
  } catch (error) {
    throw new Ec2QueryError('NoCredentials', 'no AWS credentials to sign the call', {
      cause: error,
    });
  }
}

/** The answer's root element; an Ec2QueryError for EC2's error answer or one that is no XML. */
function answerRoot(url: URL, status: number, text: string): XmlAnswer {
  const ok = status >= 200 && status < 300;
  let root: XmlAnswer;
  try {
    // parseXML skips each DOCTYPE by lower-casing the rest of the text: seconds for 256 KB of them.
    if (/<!doctype/i.test(text)) throw new Error('a DOCTYPE is not accepted');
    const [entry] = Object.entries(parseXML(text) as Record<string, XmlValue>);
    if (entry === undefined) throw new Error('no element');
    root = { name: entry[0], value: entry[1] };
  } catch (error) {
    const why = error instanceof Error ? error.message : 'unreadable';
    throw new Ec2QueryError(
      ok ? 'BadAnswer' : `HTTP ${status}`,
      `${url.host} answered ${status} with no readable XML (${why})`,
      { cause: error },
    );
  }
  if (!ok || root.name === 'Response') {
    const code = textAt(root.value, 'Errors', 'Error', 'Code') ?? `HTTP ${status}`;
    const message = textAt(root.value, 'Errors', 'Error', 'Message') ?? '';
    throw new Ec2QueryError(code, message);
  }
  return root;
}

/** The answer's text, read up to ANSWER_MAX_BYTES. */
async function boundedText(body: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    bytes += chunk.byteLength;
    if (bytes > ANSWER_MAX_BYTES) {
      body.destroy();
      throw new Ec2QueryError('BadAnswer', `the answer is over ${ANSWER_MAX_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
