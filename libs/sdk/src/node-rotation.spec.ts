import { Backoff } from './backoff';
import { SdkInvariantError } from './errors/sdk-invariant.error';
import { type NodeAddress, sameNodeAddress } from './node-address';
import { LEARNED_NODES_MAX, type NextAttempt, NodeRotation } from './node-rotation';

/** Jitter 0 and random 0: the delay of round n is exactly 10 · 2^(n-1), capped at 1000. */
const BACKOFF = new Backoff(
  { initialDelayMs: 10, delayMsMax: 1000, factor: 2, jitter: 0 },
  () => 0,
);
const A = { host: 'a.example', port: 7700 };
const B = { host: 'b.example', port: 7700 };
const C = { host: '10.0.0.3', port: 7701 };
const NAMES: Array<[NodeAddress, string]> = [
  [A, 'A'],
  [B, 'B'],
  [C, 'C'],
];

function rotation(...nodes: NodeAddress[]): NodeRotation {
  return new NodeRotation(nodes, BACKOFF);
}

/** `count` failures in a row, as `NAME@delay` (with `+n` when round n starts). */
function failures(policy: NodeRotation, count: number, notReady = false): string[] {
  return Array.from({ length: count }, () => describeAttempt(policy.failed(notReady)));
}

/** Each attempt in turn answered NOT_READY naming the given leader: where each hint sent the next one. */
function hints(policy: NodeRotation, ...leaders: NodeAddress[]): string[] {
  return leaders.map((leader) => describeAttempt(policy.redirected(leader)));
}

function describeAttempt(next: NextAttempt): string {
  const round = next.newRound ? ` +${next.round}` : '';
  const name = NAMES.find(([address]) => sameNodeAddress(address, next.node))?.[1] ?? '?';
  return `${name}@${next.delayMs}${round}`;
}

describe('NodeRotation', () => {
  it('tries every node of the first connect in order, at once, then waits a backoff step per round', () => {
    const policy = rotation(A, B, C);
    expect(policy.current).toEqual(A);
    expect(failures(policy, 7)).toEqual(['B@0', 'C@0', 'A@10 +1', 'B@0', 'C@0', 'A@20 +2', 'B@0']);
  });

  it('after a bind, a dropped connection moves to the next node; the round ends back on the node that dropped', () => {
    const policy = rotation(A, B, C);
    policy.failed(); // A unreachable at connect
    policy.succeeded(); // bound on B
    expect(policy.current).toEqual(B);
    expect(failures(policy, 4)).toEqual(['C@10 +1', 'A@0', 'B@0', 'C@20 +2']);
  });

  it('a bind resets the round count, so the next drop waits the first backoff step again', () => {
    const policy = rotation(A, B);
    policy.succeeded();
    expect(failures(policy, 5)).toEqual(['B@10 +1', 'A@0', 'B@20 +2', 'A@0', 'B@40 +3']);
    policy.succeeded(); // bound on B
    expect(failures(policy, 2)).toEqual(['A@10 +1', 'B@0']);
  });

  it('with one node, every failure is a round: the single-node reconnect loop', () => {
    const policy = rotation(A);
    expect(failures(policy, 4)).toEqual(['A@10 +1', 'A@20 +2', 'A@40 +3', 'A@80 +4']);
    policy.succeeded();
    expect(failures(policy, 1)).toEqual(['A@10 +1']);
  });

  it('caps the delay of late rounds at delayMsMax', () => {
    const policy = rotation(A);
    const delays = Array.from({ length: 12 }, () => policy.failed().delayMs);
    expect(delays.slice(-3)).toEqual([1000, 1000, 1000]);
  });

  it('passes a NOT_READY node over like a dead one, and says so when its round ends', () => {
    const policy = rotation(A, B);
    expect(policy.failed(true)).toMatchObject({ node: B, delayMs: 0, newRound: false });
    expect(policy.failed(false)).toMatchObject({
      node: A,
      newRound: true,
      round: 1,
      notReadyInLastRound: true,
    });
    policy.failed(false);
    expect(policy.failed(false)).toMatchObject({ newRound: true, notReadyInLastRound: false });
  });

  it('a round of unreachable nodes only says no node answered NOT_READY', () => {
    const policy = rotation(A, B);
    policy.failed();
    expect(policy.failed()).toMatchObject({ newRound: true, notReadyInLastRound: false });
  });

  it('appends a learnt address, which joins the round under way', () => {
    const policy = rotation(A, B);
    expect(policy.learn(C)).toBe(true);
    expect(policy.nodes).toEqual([A, B, C]);
    expect(failures(policy, 4)).toEqual(['B@0', 'C@0', 'A@10 +1', 'B@0']);
  });

  it('a round that already wrapped past the end of the list leaves a learnt address to the next round', () => {
    const policy = rotation(A, B);
    policy.succeeded(); // bound on A
    expect(failures(policy, 2)).toEqual(['B@10 +1', 'A@0']); // round 1: B, then A past the end
    policy.learn(C);
    expect(failures(policy, 4)).toEqual(['B@20 +2', 'C@0', 'A@0', 'B@40 +3']);
  });

  it('a node learnt while bound is part of the next round', () => {
    const policy = rotation(A, B);
    policy.succeeded();
    policy.learn(C);
    expect(failures(policy, 4)).toEqual(['B@10 +1', 'C@0', 'A@0', 'B@20 +2']);
  });

  it('ignores an address it knows, comparing hosts case-insensitively', () => {
    const policy = rotation(A, B);
    expect(policy.learn({ host: 'B.EXAMPLE', port: 7700 })).toBe(false);
    expect(policy.learn({ host: 'b.example', port: 7701 })).toBe(true);
    expect(policy.nodes).toHaveLength(3);
  });

  it(`keeps at most ${LEARNED_NODES_MAX} learnt addresses and never drops a configured one`, () => {
    const policy = rotation(A, B);
    const learnt = Array.from({ length: LEARNED_NODES_MAX + 5 }, (_, index) =>
      policy.learn({ host: `n${index}.example`, port: 7700 }),
    );
    expect(learnt.filter(Boolean)).toHaveLength(LEARNED_NODES_MAX);
    expect(policy.nodes).toHaveLength(2 + LEARNED_NODES_MAX);
    expect(policy.nodes.slice(0, 2)).toEqual([A, B]);
  });

  describe('a NOT_READY naming the leader', () => {
    it('sends the next attempt to that node at once, in the round under way, whose walk then goes on from it', () => {
      const policy = rotation(A, B, C);
      expect(policy.redirected(C)).toEqual({
        node: C,
        delayMs: 0,
        newRound: false,
        round: 0,
        notReadyInLastRound: false,
      });
      // after C, every other node once: a stale hint hides no node
      expect(failures(policy, 3)).toEqual(['A@0', 'B@0', 'C@10 +1']);
    });

    it('adds an unknown leader to the list and tries it next', () => {
      const policy = rotation(A, B);
      expect(hints(policy, C)).toEqual(['C@0']);
      expect(policy.nodes).toEqual([A, B, C]);
      expect(failures(policy, 3)).toEqual(['A@0', 'B@0', 'C@10 +1']);
    });

    it('counts as NOT_READY for the round, so that a first connect keeps waiting for the leader', () => {
      const policy = rotation(A, B);
      policy.redirected(B);
      policy.failed(); // B unreachable
      expect(policy.failed()).toMatchObject({ node: B, newRound: true, notReadyInLastRound: true });
    });

    it('two nodes naming each other get one hint followed per round, the rounds keeping their backoff', () => {
      const policy = rotation(A, B);
      expect(hints(policy, B, A, B, A, B, A, B)).toEqual([
        'B@0', // followed
        'A@0', // spent: the next node of the walk, as for any NOT_READY
        'B@10 +1',
        'A@0', // the wait restored the allowance
        'B@0',
        'A@20 +2',
        'B@0',
      ]);
    });

    it('a node naming itself is passed over like any NOT_READY node', () => {
      expect(hints(rotation(A, B), A, B)).toEqual(['B@0', 'A@10 +1']);
      expect(hints(rotation(A), A, A, A)).toEqual(['A@10 +1', 'A@20 +2', 'A@40 +3']);
    });

    it('a bind does not restore the allowance: nodes that bind, then name each other, still wait', () => {
      const policy = rotation(A, B);
      expect(hints(policy, B)).toEqual(['B@0']);
      policy.succeeded(); // bound on B, which later answers NOT_READY naming A
      expect(hints(policy, A)).toEqual(['A@10 +1']);
      policy.succeeded(); // bound on A after the wait
      expect(hints(policy, B)).toEqual(['B@0']);
    });

    it('from a bound connection, starts a walk from the leader without delay, the round after it being round 1', () => {
      const policy = rotation(A, B, C);
      policy.succeeded(); // bound on A
      expect(hints(policy, C)).toEqual(['C@0']);
      expect(failures(policy, 4)).toEqual(['A@0', 'B@0', 'C@10 +1', 'A@0']);
    });

    it('still learns a leader named while the allowance is spent, for the attempts to come', () => {
      const policy = rotation(A, B);
      expect(hints(policy, B, C)).toEqual(['B@0', 'C@0']); // C joins the walk after B
      expect(policy.nodes).toEqual([A, B, C]);
      expect(failures(policy, 2)).toEqual(['A@0', 'B@10 +1']);
    });

    it('without addUnknown, follows a leader only among the nodes it knows', () => {
      const policy = rotation(A, B, C);
      expect(describeAttempt(policy.redirected({ host: 'd.example', port: 7700 }, false))).toBe(
        'B@0',
      );
      expect(policy.nodes).toEqual([A, B, C]);
      expect(describeAttempt(policy.redirected(A, false))).toBe('A@0');
    });

    it(`does not follow an unknown leader once ${LEARNED_NODES_MAX} addresses were learnt`, () => {
      const policy = rotation(A, B);
      for (let index = 0; index < LEARNED_NODES_MAX; index++) {
        policy.learn({ host: `n${index}.example`, port: 7700 });
      }
      const next = policy.redirected({ host: 'one-too-many.example', port: 7700 });
      expect(next.node).toEqual(B);
      expect(policy.nodes).toHaveLength(2 + LEARNED_NODES_MAX);
    });
  });

  it('copies the configured list: a caller changing its array changes nothing', () => {
    const configured = [{ ...A }, { ...B }];
    const policy = new NodeRotation(configured, BACKOFF);
    configured.pop();
    configured[0] = C;
    expect(policy.nodes).toEqual([A, B]);
  });

  it('refuses an empty list', () => {
    expect(() => new NodeRotation([], BACKOFF)).toThrow(SdkInvariantError);
  });
});

describe('NodeRotation, configured and learnt nodes', () => {
  it('knows a configured node and a learnt one, case-insensitively by host', () => {
    const rotation = new NodeRotation([{ host: 'Once-1', port: 7700 }], { delay: () => 0 });
    rotation.learn({ host: '10.0.0.9', port: 7700 });

    expect(rotation.isKnown({ host: 'once-1', port: 7700 })).toBe(true);
    expect(rotation.isKnown({ host: '10.0.0.9', port: 7700 })).toBe(true);
    expect(rotation.isKnown({ host: '10.0.0.9', port: 7701 })).toBe(false);
  });
});
