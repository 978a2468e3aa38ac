/**
 * A tiny AWS STS endpoint on 127.0.0.1 and a random port, speaking the query protocol the real
 * STS client of `@aws-sdk/credential-providers` (`fromTemporaryCredentials`) uses for AssumeRole:
 * form-encoded `Action=AssumeRole&RoleArn=…&RoleSessionName=…`, answered with the XML
 * `AssumeRoleResponse` holding fresh temporary credentials (access key id `ASIA…`, numbered), or
 * the XML `ErrorResponse` STS sends (403 AccessDenied for a role not in `roles`, or scripted). It
 * records each call's role, session name and the access key id that signed it. Never AWS.
 */
import type { ServerResponse } from 'node:http';
import {
  queryErrorXml,
  queryForm,
  readBody,
  sendXml,
  serveOnLoopback,
  signedBy,
} from './aws-endpoint.js';

export interface AssumeRoleCall {
  readonly roleArn: string;
  readonly sessionName: string;
  /** The access key id in the request's SigV4 Authorization header (who asked). */
  readonly signedBy: string;
}

export interface IssuedCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string;
  readonly expiration: Date;
}

export interface StsServer {
  readonly url: string;
  readonly calls: AssumeRoleCall[];
  /** The credentials handed out, in order. */
  readonly issued: IssuedCredentials[];
  /** The roles that may be assumed (any other: 403 AccessDenied). */
  allow(roleArn: string): void;
  /** Answer 503 ServiceUnavailable to every call; false: answer again. */
  unavailable(on: boolean): void;
  close(): Promise<void>;
}

const XMLNS = 'https://sts.amazonaws.com/doc/2011-06-15/';

export async function startStsServer(
  options: {
    /** When issued credentials expire (epoch ms), given the call's index; default in 1 hour. */
    readonly expiresAt?: (call: number) => number;
  } = {},
): Promise<StsServer> {
  const calls: AssumeRoleCall[] = [];
  const issued: IssuedCredentials[] = [];
  const roles = new Set<string>();
  let down = false;

  const endpoint = await serveOnLoopback(async (req, res) => {
    const form = queryForm((await readBody(req)).body);
    if (form.get('Action') !== 'AssumeRole') {
      return fail(res, 400, 'InvalidAction', `unsupported: ${form.get('Action')}`);
    }
    const roleArn = form.get('RoleArn') ?? '';
    const sessionName = form.get('RoleSessionName') ?? '';
    calls.push({ roleArn, sessionName, signedBy: signedBy(req) });
    if (down) return fail(res, 503, 'ServiceUnavailable', 'Service is unavailable', 'Receiver');
    if (!roles.has(roleArn)) {
      return fail(
        res,
        403,
        'AccessDenied',
        `User: arn:aws:sts::123456789012:assumed-role/lease-watchdog-fn/lease-watchdog is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`,
      );
    }
    const n = issued.length + 1;
    const credentials: IssuedCredentials = {
      accessKeyId: `ASIAASSUMED${String(n).padStart(9, '0')}`,
      secretAccessKey: `assumed/secret+key/${n}`,
      sessionToken: `FwoGZXIvYXdzAssumedSessionToken${n}/+=`,
      expiration: new Date(options.expiresAt?.(n) ?? Date.now() + 3_600_000),
    };
    issued.push(credentials);
    sendXml(res, 200, assumeRoleXml(roleArn, sessionName, credentials, `local-${n}`));
  });
  return {
    url: endpoint.url,
    calls,
    issued,
    allow: (roleArn) => {
      roles.add(roleArn);
    },
    unavailable: (on) => {
      down = on;
    },
    close: endpoint.close,
  };
}

/** AssumeRole's answer: the assumed role's ARN in the role's account, and the credentials. */
function assumeRoleXml(
  roleArn: string,
  session: string,
  credentials: IssuedCredentials,
  requestId: string,
): string {
  const account = /::(\d{12}):/.exec(roleArn)?.[1] ?? '000000000000';
  const role = roleArn.split('/').at(-1) ?? 'role';
  return (
    `<AssumeRoleResponse xmlns="${XMLNS}"><AssumeRoleResult>` +
    `<AssumedRoleUser><AssumedRoleId>AROALOCAL:${session}</AssumedRoleId>` +
    `<Arn>arn:aws:sts::${account}:assumed-role/${role}/${session}</Arn></AssumedRoleUser>` +
    `<Credentials><AccessKeyId>${credentials.accessKeyId}</AccessKeyId>` +
    `<SecretAccessKey>${credentials.secretAccessKey}</SecretAccessKey>` +
    `<SessionToken>${credentials.sessionToken}</SessionToken>` +
    `<Expiration>${credentials.expiration.toISOString()}</Expiration></Credentials>` +
    `</AssumeRoleResult><ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></AssumeRoleResponse>`
  );
}

function fail(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  type: 'Sender' | 'Receiver' = 'Sender',
): void {
  sendXml(res, status, queryErrorXml(XMLNS, { type, code, message }, 'local-error'));
}
