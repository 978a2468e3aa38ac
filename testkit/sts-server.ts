/**
 * A tiny AWS STS endpoint on 127.0.0.1 and a random port, speaking the query protocol the real
 * STS client of `@aws-sdk/credential-providers` (`fromTemporaryCredentials`) uses for AssumeRole:
 * form-encoded `Action=AssumeRole&RoleArn=…&RoleSessionName=…`, answered with the XML
 * `AssumeRoleResponse` holding fresh temporary credentials (access key id `ASIA…`, numbered), or
 * the XML `ErrorResponse` STS sends (403 AccessDenied for a role not in `roles`, or scripted). It
 * records each call's role, session name and the access key id that signed it. Never AWS.
 */
import { createServer, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './ports.js';

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

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const authorization = String(req.headers.authorization ?? '');
      const signedBy = /Credential=([^/]+)\//.exec(authorization)?.[1] ?? '';
      if (form.get('Action') !== 'AssumeRole') {
        error(res, 400, 'InvalidAction', `unsupported: ${form.get('Action')}`);
        return;
      }
      const roleArn = form.get('RoleArn') ?? '';
      calls.push({ roleArn, sessionName: form.get('RoleSessionName') ?? '', signedBy });
      if (down) {
        error(res, 503, 'ServiceUnavailable', 'Service is unavailable', 'Receiver');
        return;
      }
      if (!roles.has(roleArn)) {
        error(
          res,
          403,
          'AccessDenied',
          `User: arn:aws:sts::123456789012:assumed-role/lease-watchdog-fn/lease-watchdog is not authorized to perform: sts:AssumeRole on resource: ${roleArn}`,
        );
        return;
      }
      const n = issued.length + 1;
      const credentials: IssuedCredentials = {
        accessKeyId: `ASIAASSUMED${String(n).padStart(9, '0')}`,
        secretAccessKey: `assumed/secret+key/${n}`,
        sessionToken: `FwoGZXIvYXdzAssumedSessionToken${n}/+=`,
        expiration: new Date(options.expiresAt?.(n) ?? Date.now() + 3_600_000),
      };
      issued.push(credentials);
      const account = /::(\d{12}):/.exec(roleArn)?.[1] ?? '000000000000';
      const role = roleArn.split('/').at(-1) ?? 'role';
      const session = form.get('RoleSessionName') ?? '';
      xml(
        res,
        200,
        `<AssumeRoleResponse xmlns="${XMLNS}"><AssumeRoleResult>` +
          `<AssumedRoleUser><AssumedRoleId>AROALOCAL:${session}</AssumedRoleId>` +
          `<Arn>arn:aws:sts::${account}:assumed-role/${role}/${session}</Arn></AssumedRoleUser>` +
          `<Credentials><AccessKeyId>${credentials.accessKeyId}</AccessKeyId>` +
          `<SecretAccessKey>${credentials.secretAccessKey}</SecretAccessKey>` +
          `<SessionToken>${credentials.sessionToken}</SessionToken>` +
          `<Expiration>${credentials.expiration.toISOString()}</Expiration></Credentials>` +
          `</AssumeRoleResult><ResponseMetadata><RequestId>local-${n}</RequestId></ResponseMetadata></AssumeRoleResponse>`,
      );
    });
  });
  const url = await listenOnLoopback(server);
  return {
    url,
    calls,
    issued,
    allow: (roleArn) => {
      roles.add(roleArn);
    },
    unavailable: (on) => {
      down = on;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function error(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  type: 'Sender' | 'Receiver' = 'Sender',
): void {
  xml(
    res,
    status,
    `<ErrorResponse xmlns="${XMLNS}"><Error><Type>${type}</Type><Code>${code}</Code>` +
      `<Message>${message}</Message></Error><RequestId>local-error</RequestId></ErrorResponse>`,
  );
}

function xml(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'text/xml',
    'content-length': Buffer.byteLength(body),
    'x-amzn-requestid': 'local-request',
  });
  res.end(body);
}
