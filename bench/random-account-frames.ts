import { type ClientId, Command, PROTOCOL_VERSION } from '@once/protocol';
import {
  HEADER_SIZE,
  MAGIC,
  Offset,
  checksumInto,
  writeClientId,
  writeU64,
} from '@once/protocol/internal';
import { benchPayload } from './bench-payload';
import { LedgerAccounts } from './ledger-accounts';

/**
 * The `ledger.deposit` frames of one session, each into an account drawn at
 * random among `accounts`: the module-state series' load, which reads and
 * writes records all over the ledger rather than one hot account per
 * connection. Every body has the same length (names of one width, the memo
 * pads to `payloadBytes`), so a frame is a copy of one template with the
 * account's digits and the request number patched, then both checksums
 * recomputed (XXH3 of about 150 bytes and of the header).
 */
export class RandomAccountFrames {
  readonly frameBytes: number;
  private readonly template: Buffer;
  private readonly digitsAt: number;

  constructor(
    fields: { operation: number; client: ClientId; session: number },
    private readonly accounts: LedgerAccounts,
    payloadBytes: number,
  ) {
    const data = benchPayload(accounts.name(0), payloadBytes);
    const body = Buffer.from(JSON.stringify({ pattern: 'ledger.deposit', data }));
    const template = Buffer.alloc(HEADER_SIZE + body.length);
    template.writeUInt32LE(MAGIC, Offset.magic);
    template.writeUInt16LE(PROTOCOL_VERSION, Offset.version);
    template[Offset.command] = Command.Request;
    template[Offset.operation] = fields.operation;
    template.writeUInt32LE(template.length, Offset.size);
    writeClientId(template, Offset.client, fields.client);
    writeU64(template, Offset.session, fields.session);
    body.copy(template, HEADER_SIZE);
    this.template = template;
    this.frameBytes = template.length;
    this.digitsAt =
      HEADER_SIZE + body.indexOf(`"${data.account}"`) + 1 + LedgerAccounts.digitsOffset;
  }

  /** Writes the frame of request number `request`, into a random account, at `offset`. */
  writeInto(target: Buffer, offset: number, request: number): void {
    this.template.copy(target, offset);
    const index = Math.floor(Math.random() * this.accounts.count);
    this.accounts.writeDigits(target, offset + this.digitsAt, index);
    checksumInto(
      target.subarray(offset + HEADER_SIZE, offset + this.frameBytes),
      target,
      offset + Offset.checksumBody,
    );
    writeU64(target, offset + Offset.request, request);
    checksumInto(
      target.subarray(offset + Offset.checksumBody, offset + HEADER_SIZE),
      target,
      offset + Offset.checksum,
    );
  }
}
