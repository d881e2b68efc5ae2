import { type ClientId } from '@once/protocol';
import { ClientTable } from './client-table';
import { type ClientEntry } from './client-entry';
import {
  CLIENT_ENTRY_RECORD_VERSION,
  decodeEntryRecord,
  encodeEntryRecord,
} from './client-entry-record';
import { TableSnapshotInvalidError } from './table-snapshot-invalid.error';
import { view } from './__fixtures__/table-history.fixture';

const id = (n: number): ClientId => n.toString(16).padStart(32, '0');
const sum = (n: number): Buffer => Buffer.alloc(16, n);
const A = id(0xa);

/** Client A of user 7: REGISTER at op 1, then requests 1..3 (ring 2), then a resume at op 9. */
function sampleEntry(): ClientEntry {
  const table = new ClientTable({ capacity: 2, ring: 2 });
  table.commitRegister(1, 1_000n, A, 7);
  table.commitReply(2, 2_000n, A, 1, 1, sum(1), Buffer.from('one'));
  table.commitReply(3, 3_000n, A, 1, 2, sum(2), Buffer.from([0, 255, 1]));
  table.commitReply(4, 4_000n, A, 1, 3, sum(3), Buffer.alloc(0));
  table.commitRegister(9, 18_446_744_073_709_551_615n, A, 7);
  return table.get(A)!;
}

/** A valid record of client A with two replies, to break one field at a time. */
function record(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    v: 1,
    userId: 7,
    epoch: 9,
    watermark: 3,
    latestCommitOp: 9,
    latestCommitTimestamp: '18446744073709551615',
    replies: [
      ['02020202020202020202020202020202', 'AP8B'],
      ['03030303030303030303030303030303', ''],
    ],
    ...fields,
  };
}

function decodeError(client: ClientId, value: unknown): unknown {
  try {
    decodeEntryRecord(client, value);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('client entry record', () => {
  it('is the entry as plain JSON: numbers, a decimal timestamp, hex checksums, base64 replies', () => {
    const encoded = encodeEntryRecord(sampleEntry());
    expect(encoded).toEqual(record());
    expect(JSON.parse(JSON.stringify(encoded))).toEqual(encoded);
    expect(encoded.v).toBe(CLIENT_ENTRY_RECORD_VERSION);
  });

  it('decodes to the entry it was encoded from', () => {
    const entry = sampleEntry();
    const decoded = decodeEntryRecord(A, JSON.parse(JSON.stringify(encodeEntryRecord(entry))));
    expect(view(decoded)).toEqual(view(entry));
    expect(decoded.watermarkChecksum).toEqual(sum(3));
    expect(decoded.replies.map((cached) => cached.request)).toEqual([2, 3]);
    expect(Object.isFrozen(decoded.replies)).toBe(true);
  });

  it('decodes a session without replies to watermark 0 and the zero checksum', () => {
    const table = new ClientTable({ capacity: 1, ring: 1 });
    table.commitRegister(5, 50n, A, 1);
    const json = JSON.stringify(encodeEntryRecord(table.get(A)!));
    expect(json).toBe(
      '{"v":1,"userId":1,"epoch":5,"watermark":0,"latestCommitOp":5,"latestCommitTimestamp":"50","replies":[]}',
    );
    const decoded = decodeEntryRecord(A, JSON.parse(json));
    expect(view(decoded)).toEqual(view(table.get(A)!));
    expect(decoded.watermarkChecksum).toEqual(Buffer.alloc(16));
  });

  it('equal entries give equal JSON, whatever their history', () => {
    const direct = new ClientTable({ capacity: 2, ring: 1 });
    direct.commitRegister(1, 10n, A, 1);
    direct.commitReply(5, 50n, A, 1, 1, sum(1), Buffer.from('x'));

    const detour = new ClientTable({ capacity: 2, ring: 3 });
    detour.commitRegister(1, 10n, A, 1);
    detour.commitRegister(2, 20n, id(1), 1);
    detour.commitReply(5, 50n, A, 1, 1, sum(1), Buffer.from('x'), 'handed-over');
    detour.setLimits({ capacity: 1, ring: 1 });

    const lazy = new ClientTable({ capacity: 2, ring: 1 });
    lazy.commitRegister(1, 10n, A, 1);
    lazy.commitReply(5, 50n, A, 1, 1, new Uint8Array(sum(1)) as Buffer, () => Buffer.from('x'));

    const expected = JSON.stringify(encodeEntryRecord(direct.get(A)!));
    for (const table of [detour, lazy]) {
      expect(JSON.stringify(encodeEntryRecord(table.get(A)!))).toBe(expected);
    }
  });
  it('encodes a reply committed with an encoder, once', () => {
    const table = new ClientTable({ capacity: 1, ring: 2 });
    table.commitRegister(1, 1n, A, 1);
    let calls = 0;
    table.commitReply(2, 2n, A, 1, 1, sum(1), () => {
      calls++;
      return Buffer.from('lazy');
    });
    expect(calls).toBe(0);
    const encoded = encodeEntryRecord(table.get(A)!);
    expect(encoded.replies).toEqual([
      [sum(1).toString('hex'), Buffer.from('lazy').toString('base64')],
    ]);
    encodeEntryRecord(table.get(A)!);
    expect(calls).toBe(1);
  });

  it('keeps nothing of the record: replies are buffers of their own', () => {
    const value = record();
    const decoded = decodeEntryRecord(A, value);
    (value.replies as string[][])[0][1] = 'AAAA';
    expect(decoded.replies[0].reply).toEqual(Buffer.from([0, 255, 1]));
  });

  describe('decode refuses a record that is not one encodeEntryRecord writes, with TABLE_SNAPSHOT_INVALID naming the client', () => {
    const cases: [string, unknown][] = [
      ['null', null],
      ['an array holding the fields', Object.assign([], record())],
      ['an unknown field', record({ extra: 1 })],
      ['another version', record({ v: 2 })],
      ['a missing field', record({ userId: undefined })],
      ['a negative userId', record({ userId: -1 })],
      ['a fractional epoch', record({ epoch: 8.5 })],
      ['a watermark as a string', record({ watermark: '3' })],
      ['an unsafe latestCommitOp', record({ latestCommitOp: 2 ** 53 })],
      ['a timestamp as a number', record({ latestCommitTimestamp: 5 })],
      ['a timestamp with a leading zero', record({ latestCommitTimestamp: '05' })],
      ['a negative timestamp', record({ latestCommitTimestamp: '-5' })],
      ['a timestamp that is not decimal', record({ latestCommitTimestamp: '0x5' })],
      ['a timestamp above 2^64 - 1', record({ latestCommitTimestamp: '18446744073709551616' })],
      ['epoch 0', record({ epoch: 0, latestCommitOp: 0 })],
      ['latestCommitOp below epoch', record({ latestCommitOp: 8 })],
      ['more replies than requests', record({ watermark: 1 })],
      ['a watermark without its reply', record({ replies: [] })],
      ['replies that are not an array', record({ replies: {} })],
      ['a reply that is not a pair', record({ replies: [['03030303030303030303030303030303']] })],
      [
        'a reply with a third element',
        record({ watermark: 1, replies: [['03030303030303030303030303030303', '', 1]] }),
      ],
      [
        'a checksum in uppercase hex',
        record({ watermark: 1, replies: [['0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A0A', '']] }),
      ],
      [
        'a checksum of 15 bytes',
        record({ watermark: 1, replies: [['030303030303030303030303030303', '']] }),
      ],
      [
        'a reply that is not a string',
        record({ watermark: 1, replies: [['03030303030303030303030303030303', 5]] }),
      ],
      [
        'a reply in base64 without its padding',
        record({ watermark: 1, replies: [['03030303030303030303030303030303', 'YQ']] }),
      ],
      [
        'a reply with characters base64 does not have',
        record({ watermark: 1, replies: [['03030303030303030303030303030303', 'YQ=*']] }),
      ],
    ];
    it.each(cases)('refuses %s', (_name, value) => {
      const error = decodeError(A, value);
      expect(error).toBeInstanceOf(TableSnapshotInvalidError);
      expect((error as TableSnapshotInvalidError).code).toBe('TABLE_SNAPSHOT_INVALID');
      expect((error as Error).message).toContain(A);
    });

    it('refuses a key that is not a client id', () => {
      const error = decodeError('0A'.repeat(16), record());
      expect((error as TableSnapshotInvalidError).code).toBe('TABLE_SNAPSHOT_INVALID');
    });

    it('accepts the valid record the cases above break', () => {
      expect(view(decodeEntryRecord(A, record()))).toEqual(view(sampleEntry()));
    });
  });
});
