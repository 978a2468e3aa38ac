/**
 * A tiny Amazon EKS endpoint on 127.0.0.1 and a random port, speaking the REST-JSON protocol the
 * real `@aws-sdk/client-eks` uses for DescribeCluster: `GET /clusters/<name>` →
 * `{cluster: {name, endpoint, certificateAuthority: {data}, status}}`, 404
 * ResourceNotFoundException, 403 AccessDeniedException. Counts calls. Never AWS.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EKSClient } from '@aws-sdk/client-eks';
import { localClientConfig, sendJson, serveOnLoopback, signedBy } from './aws-endpoint.js';

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

/** REST-JSON's content type. */
const JSON_CONTENT = { contentType: 'application/json' } as const;

/** A DescribeCluster answer for `name` (an ARN in us-east-1, Kubernetes 1.33). */
function describeCluster(name: string, cluster: EksCluster): unknown {
  return {
    cluster: {
      name,
      arn: `arn:aws:eks:us-east-1:123456789012:cluster/${name}`,
      endpoint: cluster.endpoint,
      certificateAuthority: cluster.caData === undefined ? {} : { data: cluster.caData },
      status: cluster.status ?? 'ACTIVE',
      version: '1.33',
    },
  };
}

/** A REST-JSON error: its type in the `x-amzn-errortype` header. */
function fail(res: ServerResponse, status: number, type: string, body: object): void {
  sendJson(res, status, body, { ...JSON_CONTENT, errorType: type });
}

/** What the test scripts: the clusters, and how every request is answered meanwhile. */
interface EksScript {
  readonly clusters: Map<string, EksCluster>;
  denied: boolean;
  unavailable: 'throttle' | '5xx' | null;
}

/** DescribeCluster (`GET /clusters/<name>`), as scripted. */
function answer(req: IncomingMessage, res: ServerResponse, script: EksScript): void {
  const path = req.url ?? '/';
  const match = /^\/clusters\/([^/?]+)$/.exec(path);
  if (req.method !== 'GET' || !match?.[1]) {
    fail(res, 400, 'InvalidRequestException', { message: `unsupported: ${req.method} ${path}` });
  } else if (script.unavailable !== null) {
    const [status, type] =
      script.unavailable === 'throttle'
        ? [429, 'ThrottlingException']
        : [503, 'ServiceUnavailableException'];
    fail(res, status, type, { message: 'Rate exceeded or service unavailable' });
  } else if (script.denied) {
    fail(res, 403, 'AccessDeniedException', {
      message:
        'User: arn:aws:sts::123456789012:assumed-role/watchdog/fn is not authorized to perform: eks:DescribeCluster',
    });
  } else {
    const name = decodeURIComponent(match[1]);
    const cluster = script.clusters.get(name);
    if (cluster) sendJson(res, 200, describeCluster(name, cluster), JSON_CONTENT);
    else {
      fail(res, 404, 'ResourceNotFoundException', {
        message: `No cluster found for name: ${name}.`,
        clusterName: name,
      });
    }
  }
}

export async function startEksServer(
  initial: Readonly<Record<string, EksCluster>> = {},
): Promise<EksServer> {
  const script: EksScript = {
    clusters: new Map(Object.entries(initial)),
    denied: false,
    unavailable: null,
  };
  const requests: string[] = [];
  const signers: string[] = [];
  const endpoint = await serveOnLoopback((req, res) => {
    req.resume();
    requests.push(req.url ?? '/');
    signers.push(signedBy(req));
    answer(req, res, script);
  });
  const client = new EKSClient(localClientConfig(endpoint.url));

  return {
    url: endpoint.url,
    client,
    get calls() {
      return requests.length;
    },
    requests,
    signedBy: signers,
    put: (name, cluster) => {
      script.clusters.set(name, cluster);
    },
    denyAll: (deny) => {
      script.denied = deny;
    },
    unavailable: (how) => {
      script.unavailable = how;
    },
    close: async () => {
      client.destroy();
      await endpoint.close();
    },
  };
}
