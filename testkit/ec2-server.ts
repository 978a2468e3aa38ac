/**
 * A scripted EC2 Query API endpoint (HTTP, loopback) for the evidence tests: it answers
 * DescribeInstanceStatus and DescribeInstances as EC2 does (XML, 2016-11-15) for the instances the
 * test declares, or refuses (UnauthorizedOperation), hangs, answers garbage or a DOCTYPE, or redirects to
 * `redirectTo` (307: a client that follows re-sends the body and the signed headers), as scripted.
 * It records every request (action, form parameters, Authorization and session-token headers).
 */
import type { ServerResponse } from 'node:http';
import { escapeXml, queryForm, readBody, sendXml, serveOnLoopback } from './aws-endpoint.js';

export type Ec2Mode = 'happy' | 'denied' | 'hang' | 'malformed' | 'doctype' | 'redirect';

export interface ScriptedInstance {
  readonly state: string;
  readonly reasonCode?: string;
  readonly reasonMessage?: string;
  readonly systemStatus?: string;
  readonly instanceStatus?: string;
  readonly events?: readonly { code: string; description: string; notBefore: string }[];
}

export interface Ec2Request {
  readonly action: string | null;
  readonly params: URLSearchParams;
  readonly authorization: string | undefined;
  readonly securityToken: string | undefined;
  readonly at: number;
}

export interface Ec2Server {
  readonly url: string;
  mode: Ec2Mode;
  /** Where the `redirect` mode sends the client (another origin). */
  redirectTo: string;
  readonly instances: Map<string, ScriptedInstance>;
  readonly requests: Ec2Request[];
  /** Requests still waiting for an answer (hang mode). */
  readonly pending: () => number;
  close(): Promise<void>;
}

const NS = 'http://ec2.amazonaws.com/doc/2016-11-15/';

/** EC2 answers XML as UTF-8, its errors in its own `<Response><Errors>` form. */
const CONTENT_TYPE = 'text/xml;charset=UTF-8';
const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';

function ids(params: URLSearchParams): string[] {
  return [...params.entries()].filter(([k]) => k.startsWith('InstanceId.')).map(([, v]) => v);
}

function error(res: ServerResponse, status: number, code: string, message: string): void {
  sendXml(
    res,
    status,
    `${XML_DECLARATION}<Response><Errors><Error><Code>${code}</Code><Message>${escapeXml(message)}</Message></Error></Errors><RequestID>req-1</RequestID></Response>`,
    { contentType: CONTENT_TYPE },
  );
}

function statusItem(id: string, i: ScriptedInstance): string {
  const events = (i.events ?? [])
    .map(
      (e) =>
        `<item><code>${e.code}</code><description>${escapeXml(e.description)}</description><notBefore>${e.notBefore}</notBefore></item>`,
    )
    .join('');
  const check = (status: string | undefined) =>
    `<status>${status ?? 'not-applicable'}</status><details><item><name>reachability</name><status>${status === 'impaired' ? 'failed' : 'passed'}</status></item></details>`;
  return `<item><instanceId>${id}</instanceId><availabilityZone>eu-west-1a</availabilityZone><eventsSet>${events}</eventsSet><instanceState><code>16</code><name>${i.state}</name></instanceState><systemStatus>${check(i.systemStatus)}</systemStatus><instanceStatus>${check(i.instanceStatus)}</instanceStatus></item>`;
}

function instanceItem(id: string, i: ScriptedInstance): string {
  const reason = i.reasonCode
    ? `<stateReason><code>${i.reasonCode}</code><message>${escapeXml(i.reasonMessage ?? i.reasonCode)}</message></stateReason>`
    : '';
  return `<item><instanceId>${id}</instanceId><instanceState><code>80</code><name>${i.state}</name></instanceState><reason></reason>${reason}<instanceLifecycle>spot</instanceLifecycle></item>`;
}

/** The answer to a DescribeInstanceStatus or DescribeInstances of the instances in `params`. */
function describe(
  res: ServerResponse,
  action: string | null,
  params: URLSearchParams,
  instances: ReadonlyMap<string, ScriptedInstance>,
): void {
  const wanted = ids(params);
  const unknown = wanted.find((id) => !instances.has(id));
  if (unknown) {
    error(res, 400, 'InvalidInstanceID.NotFound', `The instance ID '${unknown}' does not exist`);
    return;
  }
  const found = wanted.map((id) => [id, instances.get(id) as ScriptedInstance] as const);
  if (action === 'DescribeInstanceStatus') {
    const items = found.map(([id, i]) => statusItem(id, i)).join('');
    const xml = `<DescribeInstanceStatusResponse xmlns="${NS}"><requestId>r</requestId><instanceStatusSet>${items}</instanceStatusSet></DescribeInstanceStatusResponse>`;
    sendXml(res, 200, `${XML_DECLARATION}${xml}`, { contentType: CONTENT_TYPE });
  } else if (action === 'DescribeInstances') {
    const items = found.map(([id, i]) => instanceItem(id, i)).join('');
    const xml = `<DescribeInstancesResponse xmlns="${NS}"><requestId>r</requestId><reservationSet><item><reservationId>r-1</reservationId><instancesSet>${items}</instancesSet></item></reservationSet></DescribeInstancesResponse>`;
    sendXml(res, 200, `${XML_DECLARATION}${xml}`, { contentType: CONTENT_TYPE });
  } else {
    error(res, 400, 'InvalidAction', `no action ${action}`);
  }
}

export async function startEc2Server(mode: Ec2Mode = 'happy'): Promise<Ec2Server> {
  const instances = new Map<string, ScriptedInstance>();
  const requests: Ec2Request[] = [];
  const hanging = new Set<ServerResponse>();
  const endpoint = await serveOnLoopback(async (req, res) => {
    const params = queryForm((await readBody(req)).body);
    const action = params.get('Action');
    const securityToken = req.headers['x-amz-security-token'];
    requests.push({
      action,
      params,
      authorization: req.headers.authorization,
      securityToken: Array.isArray(securityToken) ? securityToken[0] : securityToken,
      at: Date.now(),
    });
    if (handle.mode === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
    } else if (handle.mode === 'denied') {
      error(res, 403, 'UnauthorizedOperation', 'You are not authorized to perform this operation.');
    } else if (handle.mode === 'redirect') {
      res.writeHead(307, { location: handle.redirectTo }).end();
    } else if (handle.mode === 'malformed') {
      sendXml(res, 200, '<DescribeInstanceStatusResponse><instanceStatusSet><item><instanceId>i-');
    } else if (handle.mode === 'doctype') {
      sendXml(
        res,
        200,
        '<!DOCTYPE R [<!ENTITY x "y">]><DescribeInstancesResponse>&x;</DescribeInstancesResponse>',
      );
    } else {
      describe(res, action, params, instances);
    }
  });
  const handle: Ec2Server = {
    url: endpoint.url,
    mode,
    redirectTo: endpoint.url,
    instances,
    requests,
    pending: () => hanging.size,
    async close() {
      for (const res of hanging) res.destroy();
      await endpoint.close();
    },
  };
  return handle;
}
