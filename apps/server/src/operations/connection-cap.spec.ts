import { once } from 'node:events';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { type AddressInfo, type Socket, connect } from 'node:net';
import { ConnectionCap } from './connection-cap';

/** A real HTTP server guarded by a cap of `max`, answering /slow only when `release` is called. */
async function serverWithCap(max: number) {
  const cap = new ConnectionCap(max);
  const held: ServerResponse[] = [];
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    if (request.url === '/slow') held.push(response);
    else response.end('ok');
  });
  server.on('connection', (socket: Socket) => cap.admit(socket));
  server.on('request', (request: IncomingMessage, response: ServerResponse) =>
    cap.track(request, response),
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return { cap, server, port, held };
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', reject);
  });
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('ConnectionCap', () => {
  it('at the cap, closes the oldest idle connection to make room for a new one', async () => {
    const { cap, server, port } = await serverWithCap(3);
    try {
      const sockets = [await open(port), await open(port), await open(port)];
      await until(() => cap.size === 3);
      const closed = once(sockets[0], 'close');
      const fresh = await open(port);
      await closed;
      await until(() => cap.size === 3);
      expect(sockets[1].destroyed).toBe(false);
      fresh.destroy();
      for (const socket of sockets) socket.destroy();
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('when every connection serves a request, closes the new one instead', async () => {
    const { cap, server, port, held } = await serverWithCap(2);
    try {
      const busy = [await open(port), await open(port)];
      for (const socket of busy) socket.write('GET /slow HTTP/1.1\r\nHost: localhost\r\n\r\n');
      await until(() => held.length === 2);
      const refused = await open(port);
      await once(refused, 'close');
      expect(busy.every((socket) => !socket.destroyed)).toBe(true);
      expect(cap.size).toBe(2);
      for (const response of held) response.end();
      for (const socket of busy) socket.destroy();
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
