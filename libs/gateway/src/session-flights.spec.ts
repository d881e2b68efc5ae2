import { Operation } from '@once/protocol';
import { SessionFlights } from './session-flights';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);

/** A request admitted before the check: (epoch, request) of client A. */
type Admitted = readonly [epoch: number, request: number];

function flightsWith(admitted: readonly Admitted[], client = A): SessionFlights<string> {
  const flights = new SessionFlights<string>();
  for (const [epoch, request] of admitted) {
    flights.admit(client, epoch, request, Operation.Command, checksumOf(request), `conn-${epoch}`);
  }
  return flights;
}

function checksumOf(request: number): Buffer {
  return Buffer.alloc(16, request);
}

/** Resolves to true if `promise` settled by the time already-queued work ran. */
async function settledNow(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('SessionFlights', () => {
  describe('the preflight rows of PROTOCOL.md (COMMAND): "next expected" is one more than the highest admitted', () => {
    it.each<[string, readonly Admitted[], number, number, number]>([
      // description, admitted (epoch, request), table watermark, epoch asked, next expected
      ['nothing in flight: after the watermark', [], 4, 7, 5],
      ['nothing ever committed or admitted: request 1', [], 0, 7, 1],
      [
        'requests in flight: after the highest of them',
        [
          [7, 5],
          [7, 6],
          [7, 7],
        ],
        4,
        7,
        8,
      ],
      [
        'in flight out of order of admission: still the highest',
        [
          [7, 6],
          [7, 5],
        ],
        4,
        7,
        7,
      ],
      [
        'in flight only under an older epoch (a REGISTER fenced them): after the watermark',
        [
          [3, 5],
          [3, 6],
        ],
        4,
        7,
        5,
      ],
      [
        'in flight under the old and the new epoch: only the asked epoch counts',
        [
          [3, 5],
          [3, 6],
          [3, 7],
          [7, 5],
        ],
        4,
        7,
        6,
      ],
      [
        'asked under the older epoch: its own requests count',
        [
          [3, 5],
          [3, 6],
          [7, 5],
        ],
        4,
        3,
        7,
      ],
    ])('%s', (_row, admitted, watermark, epoch, nextExpected) => {
      const flights = flightsWith(admitted);
      expect(flights.highestAdmitted(A, epoch, watermark) + 1).toBe(nextExpected);
    });

    it.each<[string, readonly Admitted[], Admitted, boolean]>([
      // description, admitted, (epoch, request) asked, in flight?
      ['the same epoch and number: in flight', [[7, 5]], [7, 5], true],
      ['another number: not in flight', [[7, 5]], [7, 6], false],
      [
        'the same number under a newer epoch: not in flight (resent after a REGISTER)',
        [[3, 5]],
        [7, 5],
        false,
      ],
      ['the same number under an older epoch: not in flight', [[7, 5]], [3, 5], false],
      ['nothing admitted: not in flight', [], [7, 5], false],
    ])('in flight: %s', (_row, admitted, [epoch, request], expected) => {
      const flights = flightsWith(admitted);
      const found = flights.inFlight(A, epoch, request);
      expect(found !== undefined).toBe(expected);
      if (found) {
        expect(found).toEqual({
          epoch,
          request,
          operation: Operation.Command,
          checksum: checksumOf(request),
          origin: `conn-${epoch}`,
          admittedAtMs: expect.any(Number),
        });
      }
    });

    it.each<[string, readonly Admitted[], number]>([
      ['nothing admitted', [], 0],
      [
        'two of one epoch',
        [
          [7, 5],
          [7, 6],
        ],
        2,
      ],
      [
        'across epochs: every one occupies the journal queue',
        [
          [3, 5],
          [3, 6],
          [7, 5],
        ],
        3,
      ],
      [
        'the same (epoch, request) admitted twice counts once',
        [
          [7, 5],
          [7, 5],
        ],
        1,
      ],
    ])('counts the requests of a client in flight: %s', (_row, admitted, count) => {
      const flights = flightsWith(admitted);
      expect(flights.count(A)).toBe(count);
      expect(flights.count(B)).toBe(0);
    });

    it('keeps each client apart', () => {
      const flights = flightsWith([[7, 5]]);
      flights.admit(B, 9, 1, Operation.Logout, checksumOf(1), 'conn-b');
      expect(flights.highestAdmitted(A, 9, 0)).toBe(0);
      expect(flights.highestAdmitted(B, 9, 0)).toBe(1);
      expect(flights.inFlight(B, 9, 1)?.operation).toBe(Operation.Logout);
      expect(flights.inFlight(A, 9, 1)).toBeUndefined();
    });
  });

  describe('settle', () => {
    it.each<[string, readonly Admitted[], Admitted, number, number]>([
      // description, admitted, settled, count after, highest admitted (epoch 7, watermark 4)
      ['the only request in flight: nothing left', [[7, 5]], [7, 5], 0, 4],
      [
        'the highest: the next highest remains',
        [
          [7, 5],
          [7, 6],
        ],
        [7, 6],
        1,
        5,
      ],
      [
        'the lowest: the highest remains',
        [
          [7, 5],
          [7, 6],
        ],
        [7, 5],
        1,
        6,
      ],
      [
        'one of an older epoch: the new epoch is untouched',
        [
          [3, 5],
          [7, 5],
        ],
        [3, 5],
        1,
        5,
      ],
      ['a request never admitted: nothing changes', [[7, 5]], [7, 9], 1, 5],
    ])('%s', (_row, admitted, [epoch, request], count, highest) => {
      const flights = flightsWith(admitted);
      flights.settle(A, epoch, request);
      expect(flights.count(A)).toBe(count);
      expect(flights.highestAdmitted(A, 7, 4)).toBe(highest);
      expect(flights.inFlight(A, epoch, request)).toBeUndefined();
    });

    it('of a client with nothing in flight does nothing', () => {
      const flights = new SessionFlights<string>();
      expect(() => flights.settle(A, 1, 1)).not.toThrow();
      expect([...flights.all()]).toEqual([]);
    });
  });

  describe('capacity (at most `ring` in flight per session)', () => {
    it.each<[string, number, number, boolean]>([
      // description, in flight, limit, resolves at once?
      ['none in flight, limit 1', 0, 1, true],
      ['below the limit', 2, 3, true],
      ['at the limit', 3, 3, false],
      ['over the limit (requests of an older epoch count too)', 4, 3, false],
    ])('waitForCapacity: %s', async (_row, inFlight, limit, atOnce) => {
      const flights = flightsWith(Array.from({ length: inFlight }, (_, i): Admitted => [7, i + 1]));
      expect(await settledNow(flights.waitForCapacity(A, limit))).toBe(atOnce);
    });

    it('wakes one waiter per settled request, in the order they began to wait', async () => {
      const flights = flightsWith([
        [7, 1],
        [7, 2],
      ]);
      const woken: string[] = [];
      const first = flights.waitForCapacity(A, 2).then(() => woken.push('first'));
      const second = flights.waitForCapacity(A, 2).then(() => woken.push('second'));
      expect(await settledNow(first)).toBe(false);

      flights.settle(A, 7, 1);
      await first;
      expect(await settledNow(second)).toBe(false);
      expect(woken).toEqual(['first']);

      flights.settle(A, 7, 2);
      await second;
      expect(woken).toEqual(['first', 'second']);
    });

    it('settling another client wakes no waiter of this one', async () => {
      const flights = flightsWith([[7, 1]]);
      flights.admit(B, 2, 1, Operation.Command, checksumOf(1), 'conn-b');
      const waiting = flights.waitForCapacity(A, 1);
      flights.settle(B, 2, 1);
      expect(await settledNow(waiting)).toBe(false);
      flights.settle(A, 7, 1);
      expect(await settledNow(waiting)).toBe(true);
    });

    it('clear (the journal failed) forgets every request and wakes every waiter', async () => {
      const flights = flightsWith([
        [7, 1],
        [7, 2],
      ]);
      flights.admit(B, 2, 1, Operation.Command, checksumOf(1), 'conn-b');
      const waiters = [flights.waitForCapacity(A, 2), flights.waitForCapacity(A, 2)];
      expect(
        [...flights.all()].map(([client, { epoch, request }]) => [client, epoch, request]),
      ).toEqual([
        [A, 7, 1],
        [A, 7, 2],
        [B, 2, 1],
      ]);

      flights.clear();

      await Promise.all(waiters);
      expect([...flights.all()]).toEqual([]);
      expect(flights.count(A)).toBe(0);
      expect(flights.highestAdmitted(A, 7, 0)).toBe(0);
    });
  });

  describe('serialize (a session reaches the journal in order)', () => {
    it('starts work in the caller’s turn when nothing is queued', () => {
      const flights = new SessionFlights<string>();
      const ran: string[] = [];
      void flights.serialize(A, () => void ran.push('now'));
      expect(ran).toEqual(['now']);
    });

    it('runs a later item only after the earlier one finished, even while it awaits', async () => {
      const flights = new SessionFlights<string>();
      const events: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const first = flights.serialize(A, async () => {
        events.push('first begins');
        await held;
        events.push('first ends');
      });
      const second = flights.serialize(A, () => void events.push('second'));
      const otherClient = flights.serialize(B, () => void events.push('other client'));

      await otherClient;
      expect(await settledNow(second)).toBe(false);
      expect(events).toEqual(['first begins', 'other client']);

      release();
      await Promise.all([first, second]);
      expect(events).toEqual(['first begins', 'other client', 'first ends', 'second']);
    });

    it.each<[string, () => never | Promise<never>, string]>([
      [
        'an Error thrown synchronously',
        () => {
          throw new TypeError('Do not know how to serialize a BigInt');
        },
        'Do not know how to serialize a BigInt',
      ],
      [
        'a rejected promise',
        () => Promise.reject(new Error('admission failed')),
        'admission failed',
      ],
      [
        'a thrown non-Error (wrapped in an Error)',
        () => {
          throw 'a string'; // eslint-disable-line @typescript-eslint/only-throw-error -- the case under test
        },
        'a string',
      ],
    ])('rejects its own promise on %s, and the queue goes on', async (_row, failing, message) => {
      const flights = new SessionFlights<string>();
      const ran: string[] = [];
      const failed = flights.serialize(A, failing);
      const after = flights.serialize(A, () => void ran.push('after'));
      await expect(failed).rejects.toThrow(message);
      await expect(failed).rejects.toBeInstanceOf(Error);
      await after;
      expect(ran).toEqual(['after']);
    });

    it('runs items queued behind an awaiting one in their order, each after the previous settled', async () => {
      const flights = new SessionFlights<string>();
      const events: string[] = [];
      const step = (name: string) => async () => {
        events.push(`${name} begins`);
        await new Promise((resolve) => setImmediate(resolve));
        events.push(`${name} ends`);
        return name;
      };
      const results = await Promise.all([
        flights.serialize(A, step('one')),
        flights.serialize(A, step('two')),
        flights.serialize(A, step('three')),
      ]);
      expect(results).toEqual(['one', 'two', 'three']);
      expect(events).toEqual([
        'one begins',
        'one ends',
        'two begins',
        'two ends',
        'three begins',
        'three ends',
      ]);
    });

    it('waits for a thenable that is not a native promise before the next item runs', async () => {
      const flights = new SessionFlights<string>();
      const events: string[] = [];
      let settle!: (value: string) => void;
      const thenable: PromiseLike<string> = {
        then: (onFulfilled, onRejected) =>
          new Promise<string>((resolve) => (settle = resolve)).then(onFulfilled, onRejected),
      };
      // Typed as a Promise by serialize; a caller's PromiseLike is awaited the same.
      const first = flights.serialize(A, () => thenable as Promise<string>);
      const second = flights.serialize(A, () => void events.push('second'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(events).toEqual([]);
      settle('first');
      expect(await first).toBe('first');
      await second;
      expect(events).toEqual(['second']);
    });

    it('leaves nothing behind once the queue is empty and nothing is in flight', async () => {
      const flights = new SessionFlights<string>();
      await flights.serialize(A, () => undefined);
      // The queue's runner finishes after the item's own promise resolved.
      await new Promise((resolve) => setImmediate(resolve));
      expect([...flights.all()]).toEqual([]);
      expect(flights.count(A)).toBe(0);
      // A fresh item still starts at once.
      const ran: string[] = [];
      void flights.serialize(A, () => void ran.push('again'));
      expect(ran).toEqual(['again']);
    });
  });

  describe('claimTurn (work its caller runs itself, in the session’s order)', () => {
    it('claims the turn of a session with nothing queued; work serialized meanwhile waits for endTurn', async () => {
      const flights = new SessionFlights<string>();
      const events: string[] = [];
      expect(flights.claimTurn(A)).toBe(true);
      events.push('claimed work');
      const queued = flights.serialize(A, () => void events.push('queued'));
      const otherClient = flights.serialize(B, () => void events.push('other client'));
      await otherClient;
      expect(await settledNow(queued)).toBe(false);

      flights.endTurn(A);
      await queued;
      expect(events).toEqual(['claimed work', 'other client', 'queued']);
    });

    it('is refused while work runs or is queued, so claimed work never overtakes it', async () => {
      const flights = new SessionFlights<string>();
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const running = flights.serialize(A, () => held);
      expect(flights.claimTurn(A)).toBe(false);
      const queued = flights.serialize(A, () => undefined);
      expect(flights.claimTurn(A)).toBe(false);
      release();
      await Promise.all([running, queued]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(flights.claimTurn(A)).toBe(true);
      flights.endTurn(A);
    });

    it('leaves nothing behind once the turn ended with nothing in flight', () => {
      const flights = new SessionFlights<string>();
      expect(flights.claimTurn(A)).toBe(true);
      flights.endTurn(A);
      expect([...flights.all()]).toEqual([]);
      expect(flights.claimTurn(A)).toBe(true);
      flights.endTurn(A);
      // Ending a turn that was not claimed changes nothing.
      flights.endTurn(A);
      expect(flights.claimTurn(A)).toBe(true);
    });
  });
});
