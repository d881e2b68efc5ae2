import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { ZERO_CHECKSUM } from '@once/protocol/internal';
import { type ClientId } from '@once/protocol';
import { ClientTable } from './client-table';
import { createCachedReply, type ClientEntry } from './client-entry';
import { TableSnapshotInvalidError } from './table-snapshot-invalid.error';
import { TABLE_SNAPSHOT_VERSION, encodeTableSnapshot } from './table-snapshot-codec';

const id = (n: number): ClientId => n.toString(16).padStart(32, '0');
const sum = (n: number): Buffer => Buffer.alloc(16, n);

/** A table with a bit of everything: several users, rings at and below their limit, an empty session. */
function sampleTable(): ClientTable {
  const table = new ClientTable({ capacity: 5, ring: 3 });
  table.commitRegister(1, 1_000n, id(1), 1);
  table.commitRegister(2, 2_000n, id(2), 2);
  table.commitRegister(3, 3_000n, id(3), 1);
  let op = 4;
  for (let request = 1; request <= 5; request++) {
    table.commitReply(
      op,
      BigInt(op * 1000),
      id(1),
      1,
      request,
      sum(request),
      Buffer.from(`r${request}`),
    );
    op++;
  }
  table.commitReply(op, BigInt(op * 1000), id(3), 3, 1, sum(7), Buffer.alloc(0));
  op++;
  table.commitRegister(op, BigInt(op * 1000), id(1), 1);
  return table;
}

/** Recomputes the trailing digest, to reach the structural checks behind it. */
function reseal(bytes: Buffer): Buffer {
  const out = Buffer.from(bytes);
  const end = out.length - 16;
  createHash('sha256').update(out.subarray(0, end)).digest().copy(out, end, 0, 16);
  return out;
}

function restoreError(bytes: Uint8Array): unknown {
  try {
    ClientTable.restore(bytes);
  } catch (error) {
    return error;
  }
  return undefined;
}

function expectInvalid(bytes: Uint8Array): void {
  const error = restoreError(bytes);
  expect(error).toBeInstanceOf(TableSnapshotInvalidError);
  expect((error as TableSnapshotInvalidError).code).toBe('TABLE_SNAPSHOT_INVALID');
  // Caught by an explicit check, not by the decoder's last-resort wrapper.
  expect((error as Error).cause).toBeUndefined();
}

function entry(fields: Partial<ClientEntry> & { client: ClientId }): ClientEntry {
  return {
    userId: 1,
    epoch: 1,
    watermark: 0,
    watermarkChecksum: ZERO_CHECKSUM,
    latestCommitOp: 1,
    latestCommitTimestamp: 1n,
    replies: [],
    ...fields,
  };
}

describe('table snapshot', () => {
  it('round trip: an equal table, the same bytes', () => {
    const table = sampleTable();
    const bytes = table.snapshot();
    expect(bytes[0]).toBe(TABLE_SNAPSHOT_VERSION);
    const restored = ClientTable.restore(bytes);
    expect([restored.capacity, restored.ring, restored.size]).toEqual([5, 3, 3]);
    expect([...restored.entries()]).toEqual([...table.entries()]);
    expect(restored.snapshot()).toEqual(bytes);
    for (const client of [id(1), id(2), id(3), id(4)]) {
      expect(restored.get(client)).toEqual(table.get(client));
    }
  });

  it('round trip of an empty table', () => {
    const table = new ClientTable({ capacity: 1, ring: 1 });
    const restored = ClientTable.restore(table.snapshot());
    expect([restored.capacity, restored.ring, restored.size]).toEqual([1, 1, 0]);
    expect(restored.snapshot()).toEqual(table.snapshot());
  });

  it('equal tables give equal bytes, whatever the history', () => {
    const direct = new ClientTable({ capacity: 2, ring: 2 });
    direct.commitRegister(1, 10n, id(1), 1);
    direct.commitRegister(5, 50n, id(2), 2);

    const detour = new ClientTable({ capacity: 3, ring: 2 });
    detour.commitRegister(1, 10n, id(1), 1);
    detour.commitRegister(2, 20n, id(2), 1);
    detour.commitRegister(3, 30n, id(3), 1);
    detour.remove(id(2));
    detour.remove(id(3));
    detour.setLimits({ capacity: 2, ring: 2 });
    detour.commitRegister(5, 50n, id(2), 2);

    expect(detour.snapshot()).toEqual(direct.snapshot());
  });

  it('a restored table continues where the original would (the op bound comes back too)', () => {
    const table = sampleTable();
    const restored = ClientTable.restore(table.snapshot());
    const latest = Math.max(...[...table.entries()].map((e) => e.latestCommitOp));
    expect(() => restored.commitRegister(latest, 1n << 40n, id(9), 9)).toThrow(
      expect.objectContaining({ code: 'TABLE_INVARIANT' }) as Error,
    );
    restored.commitRegister(latest + 1, 1n << 40n, id(9), 9);
    table.commitRegister(latest + 1, 1n << 40n, id(9), 9);
    expect(restored.snapshot()).toEqual(table.snapshot());
  });

  it('does not keep or depend on the caller’s bytes', () => {
    const table = sampleTable();
    const bytes = table.snapshot();
    const restored = ClientTable.restore(bytes);
    bytes.fill(0);
    expect(restored.check(id(1), 10, 5, sum(5))).toEqual({
      kind: 'duplicate',
      reply: Buffer.from('r5'),
    });
    const reply = restored.get(id(1))!.replies[2].reply;
    expect(reply.buffer.byteLength).toBe(reply.length); // an exact, own allocation
  });

  describe('restore rejects malformed bytes with TABLE_SNAPSHOT_INVALID', () => {
    it('rejects every truncation', () => {
      const bytes = sampleTable().snapshot();
      fc.assert(
        fc.property(fc.integer({ min: 0, max: bytes.length - 1 }), (length) => {
          expectInvalid(bytes.subarray(0, length));
          // The same cut with a valid digest: the structure alone must give it away.
          if (length < bytes.length - 16) {
            expectInvalid(reseal(Buffer.concat([bytes.subarray(0, length), Buffer.alloc(16)])));
          }
        }),
        { numRuns: 300 },
      );
    });

    it('rejects every garbled byte (the digest covers all of it)', () => {
      const bytes = sampleTable().snapshot();
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: bytes.length - 1 }),
          fc.integer({ min: 1, max: 255 }),
          (at, xor) => {
            const garbled = Buffer.from(bytes);
            garbled[at] ^= xor;
            expectInvalid(garbled);
          },
        ),
        { numRuns: 300 },
      );
    });

    it('behind a valid digest, garbled structure is rejected or decodes to a valid table, never a RangeError', () => {
      const bytes = sampleTable().snapshot();
      fc.assert(
        fc.property(
          fc.array(
            fc.tuple(
              fc.integer({ min: 0, max: bytes.length - 17 }),
              fc.integer({ min: 1, max: 255 }),
            ),
            { minLength: 1, maxLength: 4 },
          ),
          (edits) => {
            const garbled = Buffer.from(bytes);
            for (const [at, xor] of edits) garbled[at] ^= xor;
            const sealed = reseal(garbled);
            const error = restoreError(sealed);
            if (error !== undefined) {
              expectInvalid(sealed);
            } else {
              // Accepted: then it is canonical-or-normalizable and round-trips.
              const restored = ClientTable.restore(sealed);
              expect(ClientTable.restore(restored.snapshot()).snapshot()).toEqual(
                restored.snapshot(),
              );
            }
          },
        ),
        { numRuns: 500 },
      );
    });

    it('rejects random bytes', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => expectInvalid(bytes)),
        { numRuns: 200 },
      );
    });

    it('rejects an unknown format version and trailing bytes', () => {
      const bytes = sampleTable().snapshot();
      const version = Buffer.from(bytes);
      version[0] = 2;
      expectInvalid(reseal(version));
      const trailing = Buffer.concat([
        bytes.subarray(0, bytes.length - 16),
        Buffer.alloc(1),
        bytes.subarray(bytes.length - 16),
      ]);
      expectInvalid(reseal(trailing));
      expectInvalid('not bytes' as unknown as Uint8Array);
    });

    const reply = createCachedReply(1, sum(1), Buffer.from('x'));
    const cases: [string, Parameters<typeof encodeTableSnapshot>[0]][] = [
      ['capacity 0', { capacity: 0, ring: 1, entries: [] }],
      ['ring 0', { capacity: 1, ring: 0, entries: [] }],
      [
        'more entries than capacity',
        {
          capacity: 1,
          ring: 1,
          entries: [
            entry({ client: id(1) }),
            entry({ client: id(2), latestCommitOp: 2, epoch: 2 }),
          ],
        },
      ],
      [
        'a duplicate client id',
        {
          capacity: 2,
          ring: 1,
          entries: [entry({ client: id(1) }), entry({ client: id(1), latestCommitOp: 2 })],
        },
      ],
      [
        'a duplicate client id with another entry between its two',
        {
          capacity: 3,
          ring: 1,
          entries: [
            entry({ client: id(1) }),
            entry({ client: id(2), latestCommitOp: 2, epoch: 2 }),
            entry({ client: id(1), latestCommitOp: 3 }),
          ],
        },
      ],
      ['epoch 0', { capacity: 1, ring: 1, entries: [entry({ client: id(1), epoch: 0 })] }],
      [
        'latestCommitOp below epoch',
        { capacity: 1, ring: 1, entries: [entry({ client: id(1), epoch: 3, latestCommitOp: 2 })] },
      ],
      [
        'more replies than ring',
        {
          capacity: 1,
          ring: 1,
          entries: [entry({ client: id(1), watermark: 2, replies: [reply, reply] })],
        },
      ],
      [
        'more replies than requests',
        {
          capacity: 1,
          ring: 2,
          entries: [entry({ client: id(1), watermark: 1, replies: [reply, reply] })],
        },
      ],
      [
        'a watermark without its reply',
        { capacity: 1, ring: 1, entries: [entry({ client: id(1), watermark: 1 })] },
      ],
      [
        'timestamps decreasing in op order',
        {
          capacity: 2,
          ring: 1,
          entries: [
            entry({ client: id(1), latestCommitOp: 1, latestCommitTimestamp: 9n }),
            entry({ client: id(2), latestCommitOp: 2, latestCommitTimestamp: 8n }),
          ],
        },
      ],
    ];
    it.each(cases)('rejects %s', (_name, snapshot) => {
      expectInvalid(encodeTableSnapshot(snapshot));
    });

    it('rejects a u64 above 2^53 - 1', () => {
      const bytes = encodeTableSnapshot({
        capacity: 1,
        ring: 1,
        entries: [entry({ client: id(1) })],
      });
      const huge = Buffer.from(bytes);
      huge.writeBigUInt64LE(1n << 60n, 13 + 16); // the entry's userId
      expectInvalid(reseal(huge));
    });
  });
});
