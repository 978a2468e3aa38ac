/**
 * A forward proxy on loopback, as squid or tinyproxy is one for a kubeconfig's `proxy-url`:
 * CONNECT host:port, then bytes both ways. Scripted: it tunnels, or it accepts the connection
 * and never answers the CONNECT (a proxy whose upstream is stuck), the fault no read may wait on
 * for ever. It records each CONNECT's target and Proxy-Authorization, and closes every tunnel
 * and held connection when it closes.
 */
import { createServer as createHttpServer } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import { closeServer, listenOnLoopback } from './ports.js';

/** `tunnel`: CONNECT answered 200 and carried; `silent`: never answered. */
export type ProxyBehaviour = 'tunnel' | 'silent';

export interface ConnectProxy {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  /** Each CONNECT received: its target (host:port) and its Proxy-Authorization header. */
  readonly connects: { readonly target: string; readonly authorization?: string | undefined }[];
  /** Connections from clients open now, each accepted as TCP (before any CONNECT on it). */
  readonly open: number;
  setBehaviour(behaviour: ProxyBehaviour): void;
  close(): Promise<void>;
}

/** Starts the proxy, tunnelling until told otherwise. */
export async function startConnectProxy(): Promise<ConnectProxy> {
  let behaviour: ProxyBehaviour = 'tunnel';
  const connects: ConnectProxy['connects'] = [];
  const held = new Set<Socket>();
  const hold = (socket: Socket) => {
    held.add(socket);
    socket.on('error', () => undefined).once('close', () => held.delete(socket));
  };
  const server = createHttpServer((_request, response) => response.writeHead(405).end());
  let open = 0;
  server.on('connection', (socket: Socket) => {
    open++;
    socket.once('close', () => open--);
  });
  server.on('connect', (request, client: Socket, head: Buffer) => {
    const target = request.url ?? '';
    connects.push({ target, authorization: request.headers['proxy-authorization'] });
    hold(client);
    // Silent, it still closes a connection its client closed (the server's sockets stay half-open).
    if (behaviour === 'silent') {
      client.once('end', () => client.destroy());
      return;
    }
    const [host, port] = target.split(':');
    const upstream = netConnect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    hold(upstream);
    upstream.once('close', () => client.destroy());
    client.once('close', () => upstream.destroy());
  });
  const url = await listenOnLoopback(server);
  return {
    url,
    connects,
    get open() {
      return open;
    },
    setBehaviour(next) {
      behaviour = next;
    },
    async close() {
      for (const socket of held) socket.destroy();
      await closeServer(server);
    },
  };
}
