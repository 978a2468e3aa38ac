/**
 * An HTTP proxy in front of a local AWS endpoint (dynalite) that can lose answers: the request
 * reaches the server and is applied, then the connection to the client is cut before the answer
 * (a lost response, as a timeout after accept). Requests are told apart by their `X-Amz-Target`
 * operation (e.g. `PutItem`).
 *
 *   const proxy = await startLossyProxy(dynamo.endpoint);
 *   proxy.loseNext('PutItem', 1, { skip: 1 }); // the second PutItem from now: applied, unanswered
 */
import http from 'node:http';
import { closeServer, listenOnLoopback } from './ports.js';

export interface LossyProxy {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Operations seen, in order (`PutItem`, `GetItem`...). */
  readonly operations: readonly string[];
  /** Lose the answers of the next `count` requests of `operation`, after letting `skip` pass. */
  loseNext(operation: string, count: number, options?: { skip?: number }): void;
  close(): Promise<void>;
}

export async function startLossyProxy(upstream: string): Promise<LossyProxy> {
  const target = new URL(upstream);
  const operations: string[] = [];
  const plans: { operation: string; skip: number; count: number }[] = [];
  const agent = new http.Agent({ keepAlive: false });

  const server = http.createServer((req, res) => {
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    operations.push(operation);
    const plan = plans.find((p) => p.operation === operation && p.count > 0);
    let lose = false;
    if (plan) {
      if (plan.skip > 0) plan.skip -= 1;
      else {
        plan.count -= 1;
        lose = true;
      }
    }
    const forward = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent,
      },
      (answer) => {
        if (lose) {
          answer.resume();
          answer.on('end', () => req.socket.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => req.socket.destroy());
    req.pipe(forward);
  });
  const url = await listenOnLoopback(server);
  return {
    url,
    operations,
    loseNext(operation, count, options = {}) {
      plans.push({ operation, count, skip: options.skip ?? 0 });
    },
    close() {
      agent.destroy();
      return closeServer(server);
    },
  };
}
