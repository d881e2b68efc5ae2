import { mkdtemp, rm } from 'node:fs/promises';
import { type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RawPeer, oncePeer, tcpPeer } from './support/raw-peers';
import {
  type PayloadService,
  pings,
  startOncePayload,
  startTcpPayload,
} from './support/raw-services';

/*
 * NestJS's raw-socket TCP specs other than the memory bounds, on NestJS TCP
 * and on once: `tcp-shutdown` (what `close()` does to connections already
 * open) and `tcp-json-socket-pipeline` (a burst of thousands of frames in
 * one write). Each speaks the transport's own wire format.
 */

type TransportName = 'nest-tcp' | 'once';

/** How many frames NestJS's pipelining spec sends before its request. */
const BURST_FRAMES = 12_000;

describe.each<TransportName>(['nest-tcp', 'once'])(
  'NestJS’s raw-socket TCP scenarios, on %s',
  (transport) => {
    let root: string;
    let service: PayloadService | undefined;
    const peers: Socket[] = [];

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'once-contract-raw-'));
    });
    beforeEach(async () => {
      pings.count = 0;
      service =
        transport === 'nest-tcp'
          ? await startTcpPayload({})
          : await startOncePayload(join(root, `node-${peers.length}-${Date.now()}`), {});
    });
    afterEach(async () => {
      for (const socket of peers.splice(0)) socket.destroy();
      await service?.close().catch(() => undefined);
      service = undefined;
    });
    afterAll(async () => {
      if (root) await rm(root, { recursive: true, force: true });
    });

    async function peer(): Promise<RawPeer> {
      const port = service!.port;
      const made = transport === 'nest-tcp' ? await tcpPeer(port) : await oncePeer(port);
      peers.push(made.socket);
      return made;
    }
    const closed = (socket: Socket): Promise<void> =>
      socket.destroyed
        ? Promise.resolve()
        : new Promise((resolve) => socket.once('close', () => resolve()));

    describe('tcp-shutdown', () => {
      it('given an open connection, when the server closes, then its half is destroyed by the time close() resolves, and the peer sees the close', async () => {
        const { socket } = await peer();
        const peerClosed = closed(socket);
        expect(service!.accepted).toHaveLength(1);

        await service!.close();

        expect(service!.accepted.every((server) => server.destroyed)).toBe(true);
        await peerClosed;
      });

      it('given a connection that was served, when the server closes, then no handler runs for what the peer sends on it after', async () => {
        const { socket, pingRequest, readPong } = await peer();
        const pong = readPong();
        socket.write(pingRequest());
        await pong;
        expect(pings.count).toBe(1);
        const peerClosed = closed(socket);

        await service!.close();
        await peerClosed;

        expect(socket.writable).toBe(false);
        expect(pings.count).toBe(1);
      });

      it('given two open connections, when the server closes, then neither is left open', async () => {
        await peer();
        await peer();
        expect(service!.accepted).toHaveLength(2);

        await service!.close();

        expect(service!.accepted.every((server) => server.destroyed)).toBe(true);
      });
    });

    describe('tcp-json-socket-pipeline', () => {
      it(`when ${BURST_FRAMES} frames and a request arrive in one write, then the server answers the request`, async () => {
        const { socket, handlerlessFrames, pingRequest, readPong } = await peer();
        const pong = readPong();

        socket.write(Buffer.concat([handlerlessFrames(BURST_FRAMES), pingRequest()]));

        await pong;
        expect(pings.count).toBe(1);
      });
    });
  },
);
