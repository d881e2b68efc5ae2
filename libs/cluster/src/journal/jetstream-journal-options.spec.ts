import { type NatsConnection } from '@nats-io/nats-core';
import { EntryKind } from '@once/journal';
import { encodeEntry } from '@once/journal/internal';
import {
  HEADER_ROOM_BYTES,
  type JetStreamJournalOptions,
  entryCapacity,
  resolveJetStreamJournalOptions,
} from './jetstream-journal-options';
import { ClusterKeyring } from '../key';

const base: JetStreamJournalOptions = {
  connection: {} as NatsConnection,
  keyring: new ClusterKeyring([Buffer.alloc(32, 1)]),
};
const clock = () => 1n;

describe('the options of a JetStream journal', () => {
  it('default to cluster once, three replicas, and a settle time well inside the duplicate window', () => {
    expect(resolveJetStreamJournalOptions(base, clock)).toMatchObject({
      clusterName: 'once',
      replicas: 3,
      ackTimeoutMs: 2_000,
      settleTimeoutMs: 60_000,
      duplicateWindowMs: 120_000,
      groupsInFlightMax: 8,
      clock,
    });
  });

  it.each(['replicas', 'ackTimeoutMs', 'groupEntriesMax', 'groupsInFlightMax'] as const)(
    'refuse a %s that is not a positive integer, naming it',
    (name) => {
      expect(() => resolveJetStreamJournalOptions({ ...base, [name]: 0 }, clock)).toThrow(
        new RegExp(`^${name} must be an integer >= 1`),
      );
      expect(() => resolveJetStreamJournalOptions({ ...base, [name]: 1.5 }, clock)).toThrow(
        RangeError,
      );
    },
  );

  it('refuse a settle time that could outlast the duplicate window', () => {
    expect(() =>
      resolveJetStreamJournalOptions(
        { ...base, settleTimeoutMs: 100_000, ackTimeoutMs: 15_000 },
        clock,
      ),
    ).toThrow(/could store a group twice/);
    expect(
      resolveJetStreamJournalOptions(
        { ...base, settleTimeoutMs: 100_000, ackTimeoutMs: 10_000 },
        clock,
      ).settleTimeoutMs,
    ).toBe(100_000);
  });
});

describe('the entry capacity of a JetStream journal', () => {
  it('is max_payload less the headers, and a body of the most it allows encodes to exactly that entry', () => {
    const capacity = entryCapacity(64 * 1024);
    expect(capacity.entryBytesMax).toBe(64 * 1024 - HEADER_ROOM_BYTES);
    const entryOfBody = (bodyBytes: number) =>
      encodeEntry({
        kind: EntryKind.Command,
        client: '1'.padStart(32, '0'),
        session: 1,
        request: 1,
        userId: 1,
        requestChecksum: Buffer.alloc(16),
        body: Buffer.alloc(bodyBytes, 0x7b),
        op: 1,
        timestamp: 1n,
      });
    expect(entryOfBody(capacity.bodyBytesMax).byteLength).toBe(capacity.entryBytesMax);
    expect(entryOfBody(capacity.bodyBytesMax + 1).byteLength).toBeGreaterThan(
      capacity.entryBytesMax,
    );
  });
});
