/**
 * A tiny Amazon EKS endpoint on 127.0.0.1 and a random port, speaking the REST-JSON protocol the
 * real `@aws-sdk/client-eks` uses for DescribeCluster: `GET /clusters/<name>` →
 * `{cluster: {name, endpoint, certificateAuthority: {data}, status}}`, 404
 * ResourceNotFoundException, 403 AccessDeniedException. Counts calls. Never AWS.
 */
import { createServer, type ServerResponse } from 'node:http';
import { EKSClient } from '@aws-sdk/client-eks';
import { listenOnLoopback } from './ports.js';

export interface EksCluster {
  readonly endpoint?: string;
  /** base64 PEM, as EKS returns it. */
  readonly caData?: string;
  readonly status?: string;
}

export interface EksServer {
  readonly url: string;
  /** A real client pointed at this server (fake static credentials, us-east-1). */
  readonly client: EKSClient;
  readonly calls: number;
  /** Request paths, in order. */
  readonly requests: readonly string[];
  /** The access key id that signed each request (SigV4 Authorization header), in order. */
  readonly signedBy: readonly string[];
  put(name: string, cluster: EksCluster): void;
  /** Answer 403 AccessDeniedException for every request. */
  denyAll(deny: boolean): void;
  /** Answer 429 ThrottlingException or 503 ServiceUnavailableException to every request; null: answer again. */
  unavailable(how: 'throttle' | '5xx' | null): void;
  close(): Promise<void>;
}

export async function startEksServer(
  initial: Readonly<Record<string, EksCluster>> = {},
): Promise<EksServer> {
  const clusters = new Map(Object.entries(initial));
  const requests: string[] = [];
  const signedBy: string[] = [];
  let denied = false;
  let unavailable: 'throttle' | '5xx' | null = null;

  const server = createServer((req, res) => {
    req.resume();
    const path = req.url ?? '/';
    requests.push(path);
    signedBy.push(/Credential=([^/]+)\//.exec(String(req.headers.authorization ?? ''))?.[1] ?? '');
    const match = /^\/clusters\/([^/?]+)$/.exec(path);
    if (req.method !== 'GET' || !match?.[1]) {
      answer(res, 400, 'InvalidRequestException', {
        message: `unsupported: ${req.method} ${path}`,
      });
      return;
    }
    if (unavailable !== null) {
      const [status, type] =
        unavailable === 'throttle'
          ? [429, 'ThrottlingException']
          : [503, 'ServiceUnavailableException'];
      answer(res, status, type, { message: 'Rate exceeded or service unavailable' });
      return;
    }
    if (denied) {
      answer(res, 403, 'AccessDeniedException', {
        message:
          'User: arn:aws:sts::123456789012:assumed-role/watchdog/fn is not authorized to perform: eks:DescribeCluster',
      });
      return;
    }
    const name = decodeURIComponent(match[1]);
    const cluster = clusters.get(name);
    if (!cluster) {
      answer(res, 404, 'ResourceNotFoundException', {
        message: `No cluster found for name: ${name}.`,
        clusterName: name,
      });
      return;
    }
    answer(res, 200, undefined, {
      cluster: {
        name,
        arn: `arn:aws:eks:us-east-1:123456789012:cluster/${name}`,
        endpoint: cluster.endpoint,
        certificateAuthority: cluster.caData === undefined ? {} : { data: cluster.caData },
        status: cluster.status ?? 'ACTIVE',
        version: '1.33',
      },
    });
  });

  const url = await listenOnLoopback(server);
  const client = new EKSClient({
    region: 'us-east-1',
    endpoint: url,
    credentials: { accessKeyId: 'AKIDLOCAL', secretAccessKey: 'local' },
    maxAttempts: 1,
  });

  return {
    url,
    client,
    get calls() {
      return requests.length;
    },
    requests,
    signedBy,
    put: (name, cluster) => {
      clusters.set(name, cluster);
    },
    denyAll: (deny) => {
      denied = deny;
    },
    unavailable: (how) => {
      unavailable = how;
    },
    close: async () => {
      client.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function answer(
  res: ServerResponse,
  status: number,
  errorType: string | undefined,
  body: unknown,
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': 'local-request',
    ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
  });
  res.end(text);
}
