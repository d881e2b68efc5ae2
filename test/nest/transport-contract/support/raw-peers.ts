import { connect, type Socket } from 'node:net';
import { Command, Operation, Status, randomClientId } from '@once/protocol';
import { encodeFrame } from '@once/protocol/internal';
import { RawClient, outcomeOf, registrationOf } from '@once/testing';
import { USERS } from './once-service';
import { PAYLOAD } from './raw-services';

/**
 * A peer of one transport speaking its wire format over a raw socket, as
 * NestJS's raw-socket TCP specs do: NestJS's `<length>#<json>` frames, or
 * once's protocol frames on a session of alice.
 */
export interface RawPeer {
  readonly socket: Socket;
  /** `count` requests for `{ cmd: 'payload' }`, as one buffer (one write). */
  payloadRequests(count: number): Buffer;
  /** A request for `{ cmd: 'ping' }`. */
  pingRequest(): Buffer;
  /** `count` frames no handler answers: NestJS's `2#{}` event frames; once's PINGs (the node answers them itself). */
  handlerlessFrames(count: number): Buffer;
  /** The first bytes of a frame that announces more than follows. */
  partialFrame(): Buffer;
  /** Waits for `count` complete replies of `{ cmd: 'payload' }`. */
  readPayloads(count: number): Promise<void>;
  /** Waits for the reply 'pong' of `{ cmd: 'ping' }`, skipping other replies. */
  readPong(): Promise<void>;
  /** The status of the next frame (once; NestJS TCP answers nothing there). */
  nextStatus?(): Promise<number>;
}

/** NestJS's JSON-socket framing: `<length>#<json>`. */
const jsonFrame = (value: unknown): string => {
  const json = JSON.stringify(value);
  return `${json.length}#${json}`;
};

/** A raw peer of NestJS TCP. */
export async function tcpPeer(port: number): Promise<RawPeer> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  /** Resolves with each complete JSON frame the peer reads, from when it is first asked. */
  const frames = (onFrame: (frame: Record<string, unknown>) => boolean): Promise<void> =>
    new Promise((resolve) => {
      let text = '';
      const onData = (chunk: Buffer) => {
        text += chunk.toString('utf8');
        for (;;) {
          const hash = text.indexOf('#');
          if (hash < 0) return;
          const length = Number(text.slice(0, hash));
          if (text.length < hash + 1 + length) return;
          const frame = JSON.parse(text.slice(hash + 1, hash + 1 + length)) as Record<
            string,
            unknown
          >;
          text = text.slice(hash + 1 + length);
          if (onFrame(frame)) {
            socket.off('data', onData);
            resolve();
            return;
          }
        }
      };
      socket.on('data', onData);
    });
  return {
    socket,
    payloadRequests: (count) =>
      Buffer.from(
        Array.from({ length: count }, (_, id) =>
          jsonFrame({ pattern: { cmd: 'payload' }, data: null, id: String(id) }),
        ).join(''),
      ),
    pingRequest: () => Buffer.from(jsonFrame({ pattern: { cmd: 'ping' }, data: null, id: 'ping' })),
    handlerlessFrames: (count) => Buffer.from('2#{}'.repeat(count)),
    partialFrame: () => Buffer.from('999999999#partial payload'),
    readPayloads: (count) => {
      let seen = 0;
      return frames((frame) => {
        if (frame.response === PAYLOAD) seen++;
        return seen === count;
      });
    },
    readPong: () => frames((frame) => frame.id === 'ping' && frame.response === 'pong'),
  };
}

/** A raw peer of once, registered as alice. */
export async function oncePeer(port: number): Promise<RawPeer> {
  const raw = await RawClient.connect(port);
  const client = randomClientId();
  const { epoch } = registrationOf(await raw.register(client, 'alice', USERS.alice));
  const query = (pattern: string) =>
    encodeFrame(
      { command: Command.Request, operation: Operation.Query, client, session: epoch },
      JSON.stringify({ pattern, data: null }),
    );
  const payload = query('{"cmd":"payload"}');
  const ping = encodeFrame({ command: Command.Request, operation: Operation.Ping });
  return {
    socket: raw.socket,
    payloadRequests: (count) => Buffer.concat(Array.from({ length: count }, () => payload)),
    pingRequest: () => query('{"cmd":"ping"}'),
    handlerlessFrames: (count) => Buffer.concat(Array.from({ length: count }, () => ping)),
    partialFrame: () => payload.subarray(0, payload.length - 1),
    readPayloads: async (count) => {
      for (let i = 0; i < count; i++) {
        const reply = await raw.next(60_000);
        expect(reply.header.status).toBe(Status.Ok);
        expect(outcomeOf(reply)).toEqual({ ok: true, result: PAYLOAD });
      }
    },
    readPong: async () => {
      for (;;) {
        const reply = await raw.next(60_000);
        if (reply.header.operation !== (Operation.Query as number)) continue;
        expect(outcomeOf(reply)).toEqual({ ok: true, result: 'pong' });
        return;
      }
    },
    nextStatus: async () => (await raw.next(60_000)).header.status,
  };
}
