/**
 * A tiny Amazon EKS endpoint on 127.0.0.1 and a random port, speaking the REST-JSON protocol the
 * real `@aws-sdk/client-eks` uses (EKS API reference, https://docs.aws.amazon.com/eks/latest/APIReference/):
 * - DescribeCluster, `GET /clusters/<name>` → `{cluster: {name, arn, endpoint,
 *   certificateAuthority: {data}, status, tags}}`, 404 ResourceNotFoundException, 403
 *   AccessDeniedException;
 * - ListClusters, `GET /clusters?maxResults=&nextToken=` → `{clusters: [names], nextToken}`, at
 *   most `maxResults` (1-100, default 100) a page and a `nextToken` while more remain.
 * - CreateAccessEntry, `POST /clusters/<name>/access-entries` (409 ResourceInUseException when the
 *   principal has one; its `kubernetesGroups` recorded as `group:<name>`), and AssociateAccessPolicy,
 *   `POST /clusters/<name>/access-entries/<principal>/access-policies` (404 without the entry),
 *   recorded in `accessEntries`.
 * A cluster put with a `region` (and an `account`) is listed and described only in that region
 * (the SigV4 credential scope of the request) and account (`accountOf` its signer); without, in
 * every one. Scripted: throttling (every request, or the next N), a cluster deleted right after
 * the list that names it (deleted mid-run), and a DescribeCluster held until the test lets it
 * answer (an interleaving). A removed cluster's access entries go with it. Counts calls. Never AWS.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { EKSClient } from '@aws-sdk/client-eks';
import {
  localClientConfig,
  readBody,
  sendJson,
  serveOnLoopback,
  signedBy,
} from './aws-endpoint.js';

export interface EksCluster {
  readonly endpoint?: string;
  /** base64 PEM, as EKS returns it. */
  readonly caData?: string;
  readonly status?: string;
  readonly tags?: Readonly<Record<string, string>>;
  /** The region it is in (the request's credential scope); none: every region. */
  readonly region?: string;
  /** The account it is in (`accountOf` the request's signer); none: every account. */
  readonly account?: string;
  /** When it was created, epoch seconds (as EKS's JSON has it); default 2026-01-01T00:00:00Z. */
  readonly createdAt?: number;
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
  /** Answer the next `n` requests 429 ThrottlingException, then as usual. */
  throttleNext(n: number): void;
  /** Delete the cluster right after the next ListClusters page that names it is answered. */
  deleteAfterList(name: string): void;
  /** Holds the next DescribeCluster of `name` (`reached` once it arrives) until `release`. */
  hold(name: string): { readonly reached: Promise<void>; release(): void };
  remove(name: string): void;
  /** ListClusters requests so far (throttled ones included). */
  readonly listCalls: number;
  /** Access entries made: `<cluster> <principalArn>` → `group:<its groups>`, then the policies associated. */
  readonly accessEntries: ReadonlyMap<string, readonly string[]>;
  close(): Promise<void>;
}

/** REST-JSON's content type. */
const JSON_CONTENT = { contentType: 'application/json' } as const;

/** A DescribeCluster answer for `name` (an ARN in its region and account, Kubernetes 1.33). */
function describeCluster(name: string, cluster: EksCluster): unknown {
  const { region = 'us-east-1', account = '123456789012' } = cluster;
  return {
    cluster: {
      name,
      arn: `arn:aws:eks:${region}:${account}:cluster/${name}`,
      createdAt: cluster.createdAt ?? 1_767_225_600,
      endpoint: cluster.endpoint,
      certificateAuthority: cluster.caData === undefined ? {} : { data: cluster.caData },
      status: cluster.status ?? 'ACTIVE',
      version: '1.33',
      tags: cluster.tags ?? {},
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
  throttled: number;
  readonly deleteAfterList: Set<string>;
  readonly accountOf: (signer: string) => string;
  readonly accessEntries: Map<string, string[]>;
  /** DescribeCluster requests held, by cluster name: what lets each answer. */
  readonly holds: Map<string, { arrived(): void; released: Promise<void> }>;
}

/** Who asks, and where: the signer's account, the credential scope's region. */
interface Asker {
  readonly account: string;
  readonly region: string;
}

function askerOf(req: IncomingMessage, script: EksScript): Asker {
  const scope = /Credential=[^/]+\/\d{8}\/([^/]+)\//.exec(String(req.headers.authorization ?? ''));
  return { account: script.accountOf(signedBy(req)), region: scope?.[1] ?? 'us-east-1' };
}

/** Whether `asker` sees the cluster (its region and account, when it has them). */
function visible(cluster: EksCluster, asker: Asker): boolean {
  return (
    (cluster.region === undefined || cluster.region === asker.region) &&
    (cluster.account === undefined || cluster.account === asker.account)
  );
}

/** A scripted refusal of every request, or of the next few: whether one was sent. */
function refused(res: ServerResponse, script: EksScript): boolean {
  if (script.unavailable !== null || script.throttled > 0) {
    if (script.throttled > 0) script.throttled--;
    const [status, type] =
      script.unavailable === '5xx'
        ? [503, 'ServiceUnavailableException']
        : [429, 'ThrottlingException'];
    fail(res, status, type, { message: 'Rate exceeded or service unavailable' });
    return true;
  }
  if (script.denied) {
    fail(res, 403, 'AccessDeniedException', {
      message:
        'User: arn:aws:sts::123456789012:assumed-role/watchdog/fn is not authorized to perform: eks:DescribeCluster',
    });
    return true;
  }
  return false;
}

/** ListClusters: the names `asker` sees, in name order, one page from `nextToken` on. */
function listClusters(res: ServerResponse, url: URL, asker: Asker, script: EksScript): void {
  const max = Math.min(100, Math.max(1, Number(url.searchParams.get('maxResults') ?? 100)));
  const names = [...script.clusters]
    .filter(([, cluster]) => visible(cluster, asker))
    .map(([name]) => name)
    .sort();
  const from = Number(url.searchParams.get('nextToken') ?? 0);
  const page = names.slice(from, from + max);
  const more = from + max < names.length;
  sendJson(
    res,
    200,
    { clusters: page, ...(more ? { nextToken: String(from + max) } : {}) },
    JSON_CONTENT,
  );
  for (const name of page) {
    if (script.deleteAfterList.delete(name)) script.clusters.delete(name);
  }
}

/** CreateAccessEntry and AssociateAccessPolicy (`POST /clusters/<name>/access-entries…`). */
function accessEntry(path: string, body: string, res: ServerResponse, script: EksScript): void {
  const match = /^\/clusters\/([^/]+)\/access-entries(?:\/([^/]+)\/access-policies)?$/.exec(path);
  const cluster = decodeURIComponent(match?.[1] ?? '');
  const input = JSON.parse(body || '{}') as {
    principalArn?: string;
    policyArn?: string;
    kubernetesGroups?: string[];
  };
  if (match?.[2] === undefined) {
    const key = `${cluster} ${input.principalArn}`;
    if (script.accessEntries.has(key)) {
      fail(res, 409, 'ResourceInUseException', {
        message: 'The specified access entry resource is already in use on this cluster.',
      });
      return;
    }
    script.accessEntries.set(
      key,
      (input.kubernetesGroups ?? []).map((group) => `group:${group}`),
    );
    sendJson(
      res,
      200,
      { accessEntry: { clusterName: cluster, principalArn: input.principalArn } },
      JSON_CONTENT,
    );
    return;
  }
  const principal = decodeURIComponent(match[2]);
  const policies = script.accessEntries.get(`${cluster} ${principal}`);
  if (policies === undefined) {
    fail(res, 404, 'ResourceNotFoundException', {
      message: 'The specified access entry resource could not be found.',
    });
    return;
  }
  policies.push(input.policyArn ?? '');
  sendJson(res, 200, { clusterName: cluster, principalArn: principal }, JSON_CONTENT);
}

/** DescribeCluster (`GET /clusters/<name>`) and ListClusters (`GET /clusters`), as scripted. */
function answer(req: IncomingMessage, res: ServerResponse, script: EksScript, body = ''): void {
  const url = new URL(req.url ?? '/', 'http://eks');
  if (req.method === 'POST' && url.pathname.includes('/access-entries')) {
    if (!refused(res, script)) accessEntry(url.pathname, body, res, script);
    return;
  }
  const match = /^\/clusters(?:\/([^/]+))?$/.exec(url.pathname);
  if (req.method !== 'GET' || !match) {
    fail(res, 400, 'InvalidRequestException', { message: `unsupported: ${req.method} ${req.url}` });
    return;
  }
  if (refused(res, script)) return;
  const asker = askerOf(req, script);
  if (match[1] === undefined) {
    listClusters(res, url, asker, script);
    return;
  }
  const name = decodeURIComponent(match[1]);
  const cluster = script.clusters.get(name);
  if (cluster && visible(cluster, asker)) {
    sendJson(res, 200, describeCluster(name, cluster), JSON_CONTENT);
  } else {
    fail(res, 404, 'ResourceNotFoundException', {
      message: `No cluster found for name: ${name}.`,
      clusterName: name,
    });
  }
}

export async function startEksServer(
  initial: Readonly<Record<string, EksCluster>> = {},
  options: {
    /** The account of a request's signer (its access key id); default 123456789012. */
    readonly accountOf?: (accessKeyId: string) => string;
  } = {},
): Promise<EksServer> {
  const script: EksScript = {
    clusters: new Map(Object.entries(initial)),
    denied: false,
    unavailable: null,
    throttled: 0,
    deleteAfterList: new Set(),
    accountOf: options.accountOf ?? (() => '123456789012'),
    accessEntries: new Map(),
    holds: new Map(),
  };
  const requests: string[] = [];
  const signers: string[] = [];
  const endpoint = await serveOnLoopback(async (req, res) => {
    const { body } = await readBody(req);
    requests.push(req.url ?? '/');
    signers.push(signedBy(req));
    const name = /^\/clusters\/([^/?]+)$/.exec(req.url ?? '')?.[1];
    const held = name === undefined ? undefined : script.holds.get(decodeURIComponent(name));
    if (held !== undefined && req.method === 'GET') {
      script.holds.delete(decodeURIComponent(name ?? ''));
      held.arrived();
      await held.released;
    }
    answer(req, res, script, body.toString('utf8'));
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
    throttleNext: (n) => {
      script.throttled = n;
    },
    deleteAfterList: (name) => {
      script.deleteAfterList.add(name);
    },
    hold: (name) => {
      let arrived = () => {};
      let release = () => {};
      const reached = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      script.holds.set(name, { arrived, released });
      return { reached, release };
    },
    remove: (name) => {
      script.clusters.delete(name);
      for (const key of script.accessEntries.keys()) {
        if (key.startsWith(`${name} `)) script.accessEntries.delete(key);
      }
    },
    accessEntries: script.accessEntries,
    get listCalls() {
      return requests.filter((path) => /^\/clusters(\?|$)/.test(path)).length;
    },
    close: async () => {
      client.destroy();
      await endpoint.close();
    },
  };
}
