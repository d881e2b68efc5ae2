import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { EMPTY_CHECKSUM, checksum } from './checksum';
import { clientIdFromBigInt } from './client-id';
import { type Frame } from './frame';
import { FrameDecoder } from './frame-decoder';
import { encodeFrame, encodeReplyTo, type FrameFields } from './frame-encoder';
import { mintResumeToken, verifyResumeToken } from './resume-token';
import { Command, EvictionReason, Status } from './wire-constants';

/** Golden vectors made by an independent implementation of PROTOCOL.md. */
const VECTORS_PATH = path.join(__dirname, '../../../test/fixtures/protocol-vectors.json');

interface VectorFields {
  command: number;
  operation?: number;
  size?: number;
  status?: number;
  /** A u128 as a hex number (leading zeros may be dropped). */
  client?: string;
  session?: number;
  request?: number;
  /** Raw bytes 80..95 in wire order. */
  resume_token?: string;
  request_checksum?: string;
  op?: number;
  commit?: number;
  /** Decimal digits: the value exceeds 2^53. */
  timestamp?: string;
  watermark?: number;
  body?: string;
}

interface Vectors {
  xxh3_128_of_empty: string;
  frames: { name: string; hex: string; fields: VectorFields }[];
  resume_token: { node_secret_hex: string; client: string; session: number; token_hex: string };
}

function loadVectors(): Vectors {
  // JSON.parse would round a number above 2^53; keep the timestamp's digits as a string.
  const text = readFileSync(VECTORS_PATH, 'utf8').replace(
    /"timestamp":\s*(\d+)/g,
    '"timestamp":"$1"',
  );
  return JSON.parse(text) as Vectors;
}

const vectors = loadVectors();

function vectorFrame(name: string): Vectors['frames'][number] {
  const frame = vectors.frames.find((candidate) => candidate.name === name);
  if (frame === undefined) throw new Error(`no golden vector named ${name}`);
  return frame;
}

function decodeOne(bytes: Buffer): Frame {
  const decoder = new FrameDecoder();
  decoder.push(bytes);
  const result = decoder.next();
  if (result?.kind !== 'frame') throw new Error(`did not decode: ${JSON.stringify(result)}`);
  expect(decoder.bufferedBytes).toBe(0);
  expect(decoder.next()).toBeUndefined();
  return result.frame;
}

function toFrameFields(fields: VectorFields): FrameFields {
  const token = fields.resume_token ?? fields.request_checksum;
  return {
    command: fields.command,
    operation: fields.operation ?? 0,
    status: fields.status,
    client: fields.client === undefined ? undefined : clientIdFromBigInt(BigInt(fields.client)),
    session: fields.session,
    request: fields.request,
    resumeToken: token === undefined ? undefined : Buffer.from(token, 'hex'),
    op: fields.op,
    commit: fields.commit,
    timestamp: fields.timestamp === undefined ? undefined : BigInt(fields.timestamp),
    watermark: fields.watermark,
  };
}

/**
 * The reply vectors list only what the reply itself decides; the fields a reply
 * echoes (`operation`, `client`) come from the request they answer, which is
 * the "command request" vector.
 */
function completeFields(fields: VectorFields): VectorFields {
  if (fields.command === (Command.Request as number)) return fields;
  const request = vectorFrame('command request').fields;
  return { operation: request.operation, client: request.client, ...fields };
}

describe('golden vectors (test/fixtures/protocol-vectors.json)', () => {
  it.each(vectors.frames.map((frame) => [frame.name, frame] as const))(
    '%s decodes to the listed fields',
    (_name, vector) => {
      const bytes = Buffer.from(vector.hex, 'hex');
      const { header, body } = decodeOne(bytes);
      const fields = vector.fields;

      expect(header.size).toBe(bytes.length);
      expect(header.command).toBe(fields.command);
      if (fields.operation !== undefined) expect(header.operation).toBe(fields.operation);
      if (fields.size !== undefined) expect(header.size).toBe(fields.size);
      if (fields.status !== undefined) expect(header.status).toBe(fields.status);
      if (fields.client !== undefined) {
        expect(header.client).toBe(clientIdFromBigInt(BigInt(fields.client)));
      }
      if (fields.session !== undefined) expect(header.session).toBe(fields.session);
      if (fields.request !== undefined) expect(header.request).toBe(fields.request);
      if (fields.resume_token !== undefined) {
        expect(header.resumeToken.toString('hex')).toBe(fields.resume_token);
      }
      if (fields.request_checksum !== undefined) {
        expect(header.resumeToken.toString('hex')).toBe(fields.request_checksum);
      }
      if (fields.op !== undefined) expect(header.op).toBe(fields.op);
      if (fields.commit !== undefined) expect(header.commit).toBe(fields.commit);
      if (fields.timestamp !== undefined) expect(header.timestamp).toBe(BigInt(fields.timestamp));
      if (fields.watermark !== undefined) expect(header.watermark).toBe(fields.watermark);
      expect(body.toString('utf8')).toBe(fields.body ?? '');
    },
  );

  it.each(vectors.frames.map((frame) => [frame.name, frame] as const))(
    '%s is reproduced byte for byte by encodeFrame',
    (_name, vector) => {
      const fields = completeFields(vector.fields);
      const encoded = encodeFrame(toFrameFields(fields), fields.body);
      expect(encoded.toString('hex')).toBe(vector.hex);
    },
  );

  it('the command reply is reproduced by encodeReplyTo from the command request', () => {
    const request = decodeOne(Buffer.from(vectorFrame('command request').hex, 'hex'));
    const reply = vectorFrame('command reply');
    const encoded = encodeReplyTo(
      request,
      {
        command: Command.Reply,
        status: Status.Ok,
        op: 100,
        commit: 100,
        timestamp: BigInt(reply.fields.timestamp!),
        watermark: 7,
      },
      reply.fields.body,
    );
    expect(encoded.toString('hex')).toBe(reply.hex);
    // request_checksum is the request's checksum_body.
    expect(encoded.subarray(80, 96)).toEqual(request.header.checksumBody);
  });

  it('the eviction is reproduced by encodeReplyTo from the command request renumbered to 8', () => {
    const commandRequest = vectorFrame('command request').fields;
    const request = decodeOne(
      encodeFrame({ ...toFrameFields(commandRequest), request: 8 }, commandRequest.body),
    );
    const encoded = encodeReplyTo(request, {
      command: Command.Eviction,
      status: EvictionReason.SessionTooLow,
      commit: 120,
      watermark: 7,
    });
    expect(encoded.toString('hex')).toBe(vectorFrame('eviction session too low').hex);
  });

  it('the resume token is reproduced', () => {
    const { node_secret_hex, client, session, token_hex } = vectors.resume_token;
    const secret = Buffer.from(node_secret_hex, 'hex');
    const clientId = clientIdFromBigInt(BigInt(client));
    const token = mintResumeToken(secret, clientId, session);
    expect(token.toString('hex')).toBe(token_hex);
    expect(verifyResumeToken(secret, clientId, session, Buffer.from(token_hex, 'hex'))).toBe(true);
  });

  it('the XXH3-128 of the empty string is EMPTY_CHECKSUM read as a u128', () => {
    const value = EMPTY_CHECKSUM.readBigUInt64LE(0) | (EMPTY_CHECKSUM.readBigUInt64LE(8) << 64n);
    expect(value).toBe(BigInt(vectors.xxh3_128_of_empty));
    expect(checksum(Buffer.alloc(0))).toEqual(EMPTY_CHECKSUM);
  });
});
