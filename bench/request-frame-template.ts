import { type ClientId, Command, PROTOCOL_VERSION } from '@once/protocol';
import {
  HEADER_SIZE,
  MAGIC,
  Offset,
  checksumInto,
  writeClientId,
  writeU64,
} from '@once/protocol/internal';

/**
 * The request frames of one session whose body never changes (a deposit of 1
 * into the same account), built cheaply: the header, the body and its
 * checksum are computed once; each request only patches `request` and
 * recomputes the header checksum (112 bytes), so the load generator spends
 * one small XXH3 per request instead of encoding and hashing the whole frame.
 */
export class RequestFrameTemplate {
  readonly frameBytes: number;
  private readonly template: Buffer;

  constructor(fields: { operation: number; client: ClientId; session: number }, body: Buffer) {
    const template = Buffer.alloc(HEADER_SIZE + body.length);
    template.writeUInt32LE(MAGIC, Offset.magic);
    template.writeUInt16LE(PROTOCOL_VERSION, Offset.version);
    template[Offset.command] = Command.Request;
    template[Offset.operation] = fields.operation;
    template.writeUInt32LE(template.length, Offset.size);
    writeClientId(template, Offset.client, fields.client);
    writeU64(template, Offset.session, fields.session);
    body.copy(template, HEADER_SIZE);
    checksumInto(body, template, Offset.checksumBody);
    this.template = template;
    this.frameBytes = template.length;
  }

  /** Writes the frame of request number `request` into `target` at `offset`. */
  writeInto(target: Buffer, offset: number, request: number): void {
    this.template.copy(target, offset);
    writeU64(target, offset + Offset.request, request);
    checksumInto(
      target.subarray(offset + Offset.checksumBody, offset + HEADER_SIZE),
      target,
      offset + Offset.checksum,
    );
  }
}
