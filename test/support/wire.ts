import { spawn } from 'node:child_process';
import { join } from 'node:path';
import {
  type ClientId,
  Command,
  EVICTION_REASON_NAMES,
  type EvictionReason,
  type Frame,
  Operation,
  PROTOCOL_VERSION,
  STATUS_NAMES,
  Status,
  randomClientId,
} from '@once/protocol';
import {
  HEADER_SIZE,
  MAGIC,
  Offset,
  checksum,
  decodeHeader,
  encodeFrame,
} from '@once/protocol/internal';
import {
  RawClient,
  RawClientClosedError,
  type Registration,
  type RequestFields,
  ServiceProcess,
  bodyJson,
  registrationOf,
} from '@once/testing';

/**
 * Shared helpers of the gateway e2e tests: starting the reference service,
 * building request bytes (also deliberately broken ones), and asserting an
 * answer's header field by field against PROTOCOL.md.
 */

export const ADMIN_PASSWORD = 'e2e-admin-pw';
/** The `Authorization` header of the user admin, for the service's HTTP API (basic auth). */
export const ADMIN_BASIC_AUTH = `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`;

/** The built reference service on port 0 and a fresh data directory. */
export function startService(env: Readonly<Record<string, string>> = {}): Promise<ServiceProcess> {
  return ServiceProcess.start({ env: { ONCE_ADMIN_PASSWORD: ADMIN_PASSWORD, ...env } });
}

/** How a run of the built service to completion ended, with everything it printed. */
export interface ServiceRun {
  readonly code: number | null;
  readonly output: string;
}

/**
 * Runs the built reference service with `env` (ONCE_PORT 0 unless given) and
 * `args` to completion, as for a maintenance command (`--verify`) or a start
 * that must be refused; SIGKILLed after 20 s so that a hang fails instead.
 */
export function runServiceToExit(
  env: Readonly<Record<string, string>>,
  args: readonly string[] = [],
): Promise<ServiceRun> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [join(__dirname, '../../dist/apps/server/src/main.js'), ...args],
      {
        env: { ...process.env, ONCE_PORT: '0', NO_COLOR: '1', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Connections opened by a test file, destroyed together at its end. */
export class Connections {
  private readonly open: RawClient[] = [];

  constructor(private readonly port: () => number) {}

  async connect(): Promise<RawClient> {
    const client = await RawClient.connect(this.port());
    this.open.push(client);
    return client;
  }

  destroyAll(): void {
    for (const client of this.open.splice(0)) client.destroy();
  }
}

/** The reference service of a describe block, and the connections its tests open. */
export interface SuiteService {
  /** The running service; started in the block's `beforeAll`, so read it in hooks and tests only. */
  readonly service: ServiceProcess;
  readonly connections: Connections;
}

/**
 * Registers in the calling describe block a `beforeAll` that starts the
 * reference service with `env` and an `afterAll` that destroys every
 * connection opened through `connections`, then removes the service.
 */
export function serviceForSuite(env: Readonly<Record<string, string>> = {}): SuiteService {
  let service: ServiceProcess | undefined;
  const running = (): ServiceProcess => {
    if (!service)
      throw new Error('the suite service is not started yet (read it in a hook or test)');
    return service;
  };
  const connections = new Connections(() => running().port);
  beforeAll(async () => {
    service = await startService(env);
  });
  afterAll(async () => {
    connections.destroyAll();
    await service?.cleanup();
  });
  return {
    get service() {
      return running();
    },
    connections,
  };
}

/** The bytes of a request frame (`command` REQUEST unless given). */
export function requestBytes(fields: RequestFields, body?: Uint8Array | string): Buffer {
  return encodeFrame({ command: Command.Request, ...fields }, body);
}

/** The bytes of a REGISTER of `client` (default a fresh one), as admin with the admin password unless given. */
export function registerBytes(
  options: { client?: ClientId; username?: string; password?: string } = {},
): Buffer {
  return requestBytes(
    { operation: Operation.Register, client: options.client ?? randomClientId() },
    JSON.stringify({
      username: options.username ?? 'admin',
      password: options.password ?? ADMIN_PASSWORD,
    }),
  );
}

/** A COMMAND body as PROTOCOL.md asks: `{"pattern": s, "data": any}`. */
export function commandBody(pattern: string, data: unknown): string {
  return JSON.stringify({ pattern, data });
}

/** Recomputes `checksum_body` and then the header `checksum` of `frame`, in place. */
export function reseal(frame: Buffer): Buffer {
  checksum(frame.subarray(HEADER_SIZE)).copy(frame, Offset.checksumBody);
  return resealHeader(frame);
}

/** Recomputes only the header `checksum` (bytes 16..127), in place. */
export function resealHeader(frame: Buffer): Buffer {
  checksum(frame.subarray(Offset.checksumBody, HEADER_SIZE)).copy(frame, Offset.checksum);
  return frame;
}

/** A fresh account name, so that tests sharing a service never collide. */
export function accountName(prefix = 'acc'): string {
  return `${prefix}-${randomClientId().slice(0, 12)}`;
}

/** What `status` means, by name, for readable failure messages. */
function statusName(command: number, status: number): string {
  const names: Readonly<Record<number, string>> =
    (command as Command) === Command.Eviction ? EVICTION_REASON_NAMES : STATUS_NAMES;
  return names[status] ?? `unknown ${status}`;
}

export interface AnswerExpectation {
  readonly command: Command.Reply | Command.Eviction;
  readonly status: Status | EvictionReason;
  /** The header `session` when it is not the request's echo (a REGISTER reply). */
  readonly session?: number;
  /** Checked when given. */
  readonly op?: number;
  readonly commit?: number;
  readonly watermark?: number;
  /** A replicated reply carries a journal timestamp; every other answer carries 0. Default false. */
  readonly replicated?: boolean;
}

/**
 * Asserts that `answer` is the REPLY or EVICTION answering the request whose
 * bytes were `request`: magic, version and size well-formed, `operation`,
 * `client`, `session` and `request` echoed byte for byte, `request_checksum`
 * the request's `checksum_body` on a REPLY and 16 zero bytes on an EVICTION,
 * the reserved field 0, and the counters the expectation names.
 */
export function expectAnswerTo(answer: Frame, request: Buffer, expected: AnswerExpectation): void {
  const header = answer.header;
  const asked = decodeHeader(request);
  const actual = {
    magic: header.magic,
    version: header.version,
    size: header.size,
    reserved: header.reserved,
    command: header.command,
    operation: header.operation,
    status: statusName(header.command, header.status),
    client: header.client,
    session: header.session,
    request: header.request,
    requestChecksum: header.resumeToken.toString('hex'),
    op: header.op,
    commit: header.commit,
    timestamp: header.timestamp === 0n ? 'zero' : 'a journal timestamp',
    watermark: header.watermark,
  };
  const wanted = {
    magic: MAGIC,
    version: PROTOCOL_VERSION,
    size: answer.raw.length,
    reserved: 0,
    command: expected.command,
    operation: asked.operation,
    status: statusName(expected.command, expected.status),
    client: asked.client,
    session: expected.session ?? asked.session,
    request: asked.request,
    requestChecksum:
      expected.command === Command.Reply
        ? asked.checksumBody.toString('hex')
        : Buffer.alloc(16).toString('hex'),
    op: expected.op ?? actual.op,
    commit: expected.commit ?? actual.commit,
    timestamp: expected.replicated ? 'a journal timestamp' : 'zero',
    watermark: expected.watermark ?? actual.watermark,
  };
  expect(actual).toEqual(wanted);
  if (expected.session === undefined) {
    // Echoed as raw bytes, not just as equal numbers.
    expect(answer.raw.subarray(Offset.client, Offset.resumeToken)).toEqual(
      request.subarray(Offset.client, Offset.resumeToken),
    );
  }
}

export interface UnaskedEvictionExpectation {
  readonly reason: EvictionReason;
  readonly client: ClientId;
  readonly session: number;
  readonly commit?: number;
  readonly watermark?: number;
}

/** Asserts an EVICTION that answers no request: the session it names and why it ended. */
export function expectUnaskedEviction(frame: Frame, expected: UnaskedEvictionExpectation): void {
  const header = frame.header;
  const actual = {
    command: header.command,
    status: statusName(header.command, header.status),
    client: header.client,
    session: header.session,
    requestChecksum: header.resumeToken.toString('hex'),
    op: header.op,
    commit: header.commit,
    timestamp: header.timestamp,
    watermark: header.watermark,
  };
  expect(actual).toEqual({
    command: Command.Eviction,
    status: statusName(Command.Eviction, expected.reason),
    client: expected.client,
    session: expected.session,
    requestChecksum: Buffer.alloc(16).toString('hex'),
    op: 0,
    commit: expected.commit ?? actual.commit,
    timestamp: 0n,
    watermark: expected.watermark ?? actual.watermark,
  });
}

/** The node's highest committed op, as a PING on `client` reports it. */
export async function pingCommit(client: RawClient): Promise<number> {
  const reply = await client.ping();
  return (bodyJson(reply) as { commit: number }).commit;
}

/** Resolves when the node closed `client`; fails after `ms` instead of hanging the test. */
export async function closedWithin(client: RawClient, ms = 5000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the node did not close within ${ms} ms`)), ms);
  });
  try {
    await Promise.race([client.whenClosed(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The one frame the node sends before it closes the connection; fails if a second one came. */
export async function onlyFrameThenClosed(client: RawClient): Promise<Frame> {
  const frame = await client.next();
  await closedWithin(client);
  await expect(client.next()).rejects.toBeInstanceOf(RawClientClosedError);
  return frame;
}

/** The next `count` frames, in arrival order. */
export async function nextFrames(client: RawClient, count: number): Promise<Frame[]> {
  const frames: Frame[] = [];
  for (let i = 0; i < count; i++) frames.push(await client.next());
  return frames;
}

/** A session held by one connection, numbering its requests the way a client must. */
export class TestSession {
  /** The next request number. */
  next = 1;

  private constructor(
    readonly connection: RawClient,
    readonly client: ClientId,
    readonly registration: Registration,
    /** The REGISTER reply. */
    readonly registered: Frame,
    /** The REGISTER request's bytes. */
    readonly registerRequest: Buffer,
  ) {}

  /** REGISTERs `client` on `connection` (the connection is bound once the reply arrived). */
  static async open(
    connection: RawClient,
    options: { client?: ClientId; username?: string; password?: string } = {},
  ): Promise<TestSession> {
    const client = options.client ?? randomClientId();
    const registerRequest = requestBytes(
      { operation: Operation.Register, client },
      JSON.stringify({
        username: options.username ?? 'admin',
        password: options.password ?? ADMIN_PASSWORD,
      }),
    );
    connection.write(registerRequest);
    const registered = await connection.next();
    if (registered.header.status !== 0) {
      throw new Error(
        `REGISTER refused: status ${registered.header.status} ${registered.body.toString('utf8')}`,
      );
    }
    return new TestSession(
      connection,
      client,
      registrationOf(registered),
      registered,
      registerRequest,
    );
  }

  get epoch(): number {
    return this.registration.epoch;
  }

  get token(): Buffer {
    return this.registration.resumeToken;
  }

  /** The bytes of a COMMAND of this session (with its resume token); does not advance `next`. */
  commandBytes(pattern: string, data: unknown, request = this.next, session = this.epoch): Buffer {
    return requestBytes(
      {
        operation: Operation.Command,
        client: this.client,
        session,
        request,
        resumeToken: this.token,
      },
      commandBody(pattern, data),
    );
  }

  /** Sends the next COMMAND on `connection` (default: the session's own) and returns its answer. */
  async command(
    pattern: string,
    data: unknown,
    connection: RawClient = this.connection,
  ): Promise<{ request: Buffer; reply: Frame }> {
    const request = this.commandBytes(pattern, data);
    this.next++;
    connection.write(request);
    return { request, reply: await connection.next() };
  }

  /** The bytes of a QUERY of this session. */
  queryBytes(pattern: string, data: unknown): Buffer {
    return requestBytes(
      { operation: Operation.Query, client: this.client, session: this.epoch },
      commandBody(pattern, data),
    );
  }
}

/**
 * Asserts the answers to pipelined requests `requests` during a graceful
 * stop: every request answered, in order, the committed ones OK and, once
 * the stop began, NOT_READY (retry later) — never silence, never a gap.
 * Returns how many committed.
 */
export function expectCommittedThenNotReady(answered: Frame[], requests: number[]): number {
  expect(answered.map((frame) => frame.header.request)).toEqual(requests);
  const statuses = answered.map((frame) => frame.header.status as Status);
  const committed = statuses.filter((status) => status === Status.Ok).length;
  expect(statuses).toEqual([
    ...Array<Status>(committed).fill(Status.Ok),
    ...Array<Status>(requests.length - committed).fill(Status.NotReady),
  ]);
  return committed;
}
