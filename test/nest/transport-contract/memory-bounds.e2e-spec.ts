import { mkdtemp, rm } from 'node:fs/promises';
import { type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Status } from '@once/protocol';
import { type RawPeer, oncePeer, tcpPeer } from './support/raw-peers';
import {
  type PayloadLimits,
  type PayloadService,
  startOncePayload,
  startTcpPayload,
} from './support/raw-services';

/*
 * NestJS's `tcp-memory-bounds` spec, on NestJS TCP and on once: a peer must
 * not hold the server's memory by asking for replies it never reads, nor by
 * beginning a frame it never finishes. NestJS bounds them with
 * `maxSendBufferSize` and `incompleteMessageTimeout`; once with
 * `writeBufferBytesMax` and `partialFrameTimeoutMs` (NestJS's option names
 * are refused on OnceServer, naming these). Each scenario speaks the
 * transport's own wire format over a raw socket.
 */

const MIB = 1024 * 1024;
const REQUESTS = 20;

type TransportName = 'nest-tcp' | 'once';

describe.each<TransportName>(['nest-tcp', 'once'])(
  'the memory bounds of NestJS’s TCP transport, on %s',
  (transport) => {
    let root: string;
    let service: PayloadService | undefined;
    const peers: Socket[] = [];

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'once-contract-bounds-'));
    });
    afterEach(async () => {
      for (const socket of peers.splice(0)) socket.destroy();
      await service?.close();
      service = undefined;
    });
    afterAll(async () => {
      if (root) await rm(root, { recursive: true, force: true });
    });

    let nodes = 0;
    async function start(limits: PayloadLimits): Promise<PayloadService> {
      service =
        transport === 'nest-tcp'
          ? await startTcpPayload(limits)
          : await startOncePayload(join(root, `node-${++nodes}`), limits);
      return service;
    }
    async function peer(port: number): Promise<RawPeer> {
      const made = transport === 'nest-tcp' ? await tcpPeer(port) : await oncePeer(port);
      peers.push(made.socket);
      return made;
    }

    it(`given a send buffer bound of 2 MiB, when a peer asks for ${REQUESTS} replies of 1 MiB in one write and never reads, then the server drops it`, async () => {
      const { port, serverClosed } = await start({ sendBufferBytes: 2 * MIB });
      const { socket, payloadRequests } = await peer(port);

      socket.pause();
      socket.write(payloadRequests(REQUESTS));

      // The server's half closes; the paused peer would only see it when it reads again.
      await serverClosed(0);
    });

    it(`given a send buffer bound of 32 MiB, when a peer that reads asks for ${REQUESTS} replies of 1 MiB in one write, then it gets every reply and stays connected`, async () => {
      const { port, accepted } = await start({ sendBufferBytes: 32 * MIB });
      const { socket, payloadRequests, readPayloads } = await peer(port);

      const read = readPayloads(REQUESTS);
      socket.write(payloadRequests(REQUESTS));
      await read;

      expect(accepted.every((server) => !server.destroyed)).toBe(true);
      expect(socket.destroyed).toBe(false);
    });

    it('given an incomplete-frame timeout, when a peer begins a frame and goes silent, then the server drops it', async () => {
      const { port } = await start({ partialFrameMs: 300 });
      const { socket, partialFrame, nextStatus } = await peer(port);
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));

      socket.write(partialFrame());

      // once says why first.
      if (nextStatus) await expect(nextStatus()).resolves.toBe(Status.BadFrame);
      await closed;
      expect(socket.destroyed).toBe(true);
    });
  },
);
