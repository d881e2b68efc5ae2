import { type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { Controller, type DynamicModule, type INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Transport } from '@nestjs/microservices';
import { ONCE_AUTHENTICATOR, OnceModule, Query } from '@once/framework';
import { OnceServer } from '@once/gateway';
import { StaticAuthenticator } from '@once/testing';
import { USERS } from './once-service';
import { listenUntilReady } from '../../../support/listen-until-ready';

/** The reply of `{ cmd: 'payload' }`: 1 MiB, as in NestJS's memory-bounds spec. */
export const PAYLOAD = 'x'.repeat(1024 * 1024);

/** How many times a `{ cmd: 'ping' }` handler ran (NestJS's shutdown spec counts them). */
export const pings = { count: 0 };

@Controller()
class TcpPayloadController {
  @MessagePattern({ cmd: 'payload' })
  payload(): string {
    return PAYLOAD;
  }

  @MessagePattern({ cmd: 'ping' })
  ping(): string {
    pings.count++;
    return 'pong';
  }
}

@Module({ controllers: [TcpPayloadController] })
class TcpPayloadModule {}

@Controller()
class OncePayloadController {
  @Query({ cmd: 'payload' })
  payload(): string {
    return PAYLOAD;
  }

  @Query({ cmd: 'ping' })
  ping(): string {
    pings.count++;
    return 'pong';
  }
}

@Module({})
class OncePayloadModule {
  static register(dataDir: string): DynamicModule {
    return {
      module: OncePayloadModule,
      imports: [OnceModule.forRoot({ dataDir })],
      controllers: [OncePayloadController],
      providers: [{ provide: ONCE_AUTHENTICATOR, useValue: new StaticAuthenticator(USERS) }],
    };
  }
}

/**
 * The app of NestJS's raw-socket TCP specs (memory bounds, shutdown,
 * pipelined frames: `{ cmd: 'payload' }` answers 1 MiB, `{ cmd: 'ping' }`
 * answers 'pong' and counts) on one
 * transport, with the server-side sockets it accepted, so that a scenario
 * can wait for the server to drop a peer (a paused peer does not see its
 * own connection reset until it reads again).
 */
export interface PayloadService {
  readonly port: number;
  /** The server's half of every connection it accepted, in order. */
  readonly accepted: Socket[];
  /** Resolves when the server's half of the `index`th accepted connection closes. */
  serverClosed(index: number): Promise<void>;
  close(): Promise<void>;
}

/** The limits of both transports, each under its own name. */
export interface PayloadLimits {
  /** Unread reply bytes past which the peer is dropped (TCP `maxSendBufferSize`, once `writeBufferBytesMax`). */
  readonly sendBufferBytes?: number;
  /** A frame begun and not finished within this long drops the peer (TCP `incompleteMessageTimeout`, once `partialFrameTimeoutMs`). */
  readonly partialFrameMs?: number;
}

/** NestJS TCP with `maxSendBufferSize` / `incompleteMessageTimeout`. */
export async function startTcpPayload(limits: PayloadLimits): Promise<PayloadService> {
  const app = await NestFactory.createMicroservice(TcpPayloadModule, {
    transport: Transport.TCP,
    options: {
      host: '127.0.0.1',
      port: 0,
      ...(limits.sendBufferBytes !== undefined && { maxSendBufferSize: limits.sendBufferBytes }),
      ...(limits.partialFrameMs !== undefined && {
        incompleteMessageTimeout: limits.partialFrameMs,
      }),
    },
    logger: false,
  });
  await app.listen();
  return served(app, app.unwrap<NetServer>());
}

/** A once node with `writeBufferBytesMax` / `partialFrameTimeoutMs`, on `dataDir`. */
export async function startOncePayload(
  dataDir: string,
  limits: PayloadLimits,
): Promise<PayloadService> {
  const strategy = new OnceServer({
    port: 0,
    ...(limits.sendBufferBytes !== undefined && { writeBufferBytesMax: limits.sendBufferBytes }),
    ...(limits.partialFrameMs !== undefined && { partialFrameTimeoutMs: limits.partialFrameMs }),
  });
  const app = await NestFactory.createMicroservice(OncePayloadModule.register(dataDir), {
    strategy,
    logger: false,
  });
  await listenUntilReady(app);
  return served(app, strategy.unwrap<NetServer>());
}

function served(app: INestMicroservice, server: NetServer): PayloadService {
  const accepted: Socket[] = [];
  const closed: Array<Promise<void>> = [];
  server.on('connection', (socket: Socket) => {
    accepted.push(socket);
    closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
  });
  return {
    port: (server.address() as AddressInfo).port,
    accepted,
    serverClosed: (index) => closed[index],
    close: () => app.close(),
  };
}
