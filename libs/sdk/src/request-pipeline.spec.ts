import { SdkInvariantError } from './errors/sdk-invariant.error';
import { CommandEntry, QueryEntry } from './pending-request';
import { RequestPipeline } from './request-pipeline';

const settled: unknown[] = [];
const settler = {
  resolve: (value: unknown) => settled.push(value),
  reject: (error: unknown) => settled.push(error),
};

function command(name = 'c'): CommandEntry {
  return new CommandEntry('command', name, Buffer.from(name), settler);
}

/** Request numbers from `next` on. */
function numbers(next = 1): () => number {
  return () => next++;
}

describe('RequestPipeline', () => {
  it('numbers queued commands in order, at most inFlightMax at a time', () => {
    const pipeline = new RequestPipeline(2, 10);
    const entries = [command('a'), command('b'), command('c')];
    entries.forEach((entry) => pipeline.enqueue(entry));
    const assign = numbers();

    expect(pipeline.numberNext(assign, true)).toEqual([entries[0], entries[1]]);
    expect(entries.map((entry) => entry.request)).toEqual([1, 2, 0]);
    expect(pipeline.numberNext(assign, true)).toEqual([]);
    expect(pipeline.settle(1)).toBe(entries[0]);
    expect(pipeline.numberNext(assign, true)).toEqual([entries[2]]);
    expect(pipeline.unanswered().map((entry) => entry.request)).toEqual([2, 3]);
  });

  it('keeps at most queuedMax queued; the rest waits for room, in order', () => {
    const pipeline = new RequestPipeline(1, 2);
    const entries = ['a', 'b', 'c', 'd'].map((name) => command(name));
    entries.forEach((entry) => pipeline.enqueue(entry));
    expect([pipeline.queuedCount, pipeline.waitingCount]).toEqual([2, 2]);

    const assign = numbers();
    expect(pipeline.numberNext(assign, true).map((entry) => entry.pattern)).toEqual(['a']);
    expect([pipeline.queuedCount, pipeline.waitingCount]).toEqual([2, 1]);
    pipeline.settle(1);
    expect(pipeline.numberNext(assign, true).map((entry) => entry.pattern)).toEqual(['b']);
    pipeline.settle(2);
    expect(pipeline.numberNext(assign, true).map((entry) => entry.pattern)).toEqual(['c']);
    expect([pipeline.queuedCount, pipeline.waitingCount]).toEqual([1, 0]);
  });

  it('withdraws a command only while it has no number, and refills the queue', () => {
    const pipeline = new RequestPipeline(1, 1);
    const [a, b, c] = [command('a'), command('b'), command('c')];
    [a, b, c].forEach((entry) => pipeline.enqueue(entry));
    pipeline.numberNext(numbers(), true);
    expect(pipeline.withdraw(a)).toBe(false); // sent: keeps its number
    expect(pipeline.withdraw(b)).toBe(true);
    expect([pipeline.queuedCount, pipeline.waitingCount]).toEqual([1, 0]);
    expect(pipeline.withdraw(c)).toBe(true);
    expect(pipeline.queuedCount).toBe(0);
  });

  it('sends in number order and never past a command whose number is not durable yet', () => {
    const pipeline = new RequestPipeline(8, 8);
    const entries = ['a', 'b', 'c'].map((name) => command(name));
    entries.forEach((entry) => pipeline.enqueue(entry));
    pipeline.numberNext(numbers(), false);
    const link = {};
    expect(pipeline.sendable(link)).toEqual([]);

    entries[0].durable = true;
    entries[2].durable = true;
    expect(pipeline.sendable(link)).toEqual([entries[0]]);
    entries[0].sentOn = link;
    entries[1].durable = true;
    expect(pipeline.sendable(link)).toEqual([entries[1], entries[2]]);
    expect(pipeline.sendable(link, 1)).toEqual([entries[1]]);
    expect(pipeline.sendable({})).toEqual(entries); // a new link gets everything again
  });

  it('marks everything unsent when the link is lost', () => {
    const pipeline = new RequestPipeline(8, 8);
    const entries = ['a', 'b'].map((name) => command(name));
    entries.forEach((entry) => pipeline.enqueue(entry));
    pipeline.numberNext(numbers(), true);
    const link = {};
    entries.forEach((entry) => (entry.sentOn = link));
    expect(pipeline.sendable(link)).toEqual([]);
    pipeline.markAllUnsent();
    expect(pipeline.sendable(link)).toEqual(entries);
  });

  it('on a lost session, gives back the commands ever sent and requeues the never-sent ones unnumbered, first', () => {
    const pipeline = new RequestPipeline(3, 8);
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => command(name));
    [a, b, c, d].forEach((entry) => pipeline.enqueue(entry));
    pipeline.numberNext(numbers(5), true);
    a.everSent = true;
    b.everSent = true;

    expect(pipeline.takeInDoubt()).toEqual([a, b]);
    expect(pipeline.inFlightCount).toBe(0);
    expect([c.request, c.durable]).toEqual([0, false]);
    // Numbering starts again (a new client id): c first, then d.
    expect(pipeline.numberNext(numbers(1), true)).toEqual([c, d]);
    expect([c.request, d.request]).toEqual([1, 2]);
  });

  it('adopts in-doubt commands of a previous process under their numbers, and numbers after them', () => {
    const pipeline = new RequestPipeline(8, 8);
    const [x, y] = [command('x'), command('y')];
    pipeline.adopt(x, 4);
    pipeline.adopt(y, 6);
    expect([x.everSent, x.durable]).toEqual([true, true]);
    const next = command('n');
    pipeline.enqueue(next);
    pipeline.numberNext(numbers(7), true);
    expect(pipeline.unanswered().map((entry) => entry.request)).toEqual([4, 6, 7]);
  });

  it('refuses numbers that do not grow', () => {
    const pipeline = new RequestPipeline(8, 8);
    pipeline.adopt(command('x'), 4);
    expect(() => pipeline.adopt(command('y'), 4)).toThrow(SdkInvariantError);
    pipeline.enqueue(command('z'));
    expect(() => pipeline.numberNext(numbers(3), true)).toThrow(SdkInvariantError);
  });

  it('numbers a LOGOUT last, past inFlightMax, once nothing is queued', () => {
    const pipeline = new RequestPipeline(1, 8);
    const a = command('a');
    pipeline.enqueue(a);
    const assign = numbers();
    pipeline.numberNext(assign, true);
    const logout = new CommandEntry('logout', 'LOGOUT', Buffer.alloc(0), settler);
    pipeline.numberLast(logout, assign, true);
    expect(pipeline.unanswered()).toEqual([a, logout]);
    expect(logout.request).toBe(2);
  });

  it('answers queries in the order sent and sends unanswered ones again on the next link', () => {
    const pipeline = new RequestPipeline(8, 8);
    const [q1, q2, q3] = ['q1', 'q2', 'q3'].map(
      (name) => new QueryEntry(name, Buffer.from(name), settler),
    );
    pipeline.addQuery(q1);
    pipeline.addQuery(q2);
    expect(pipeline.takeQueriesToSend()).toEqual([q1, q2]);
    pipeline.addQuery(q3);
    expect(pipeline.shiftSentQuery()).toBe(q1);
    q1.resolve('done');
    q2.reject(new Error('timed out')); // done: not sent again
    pipeline.requeueSentQueries();
    expect(pipeline.takeQueriesToSend()).toEqual([q3]);
    expect(pipeline.withdrawQuery(q3)).toBe(false); // sent: stays until answered
  });

  it('is empty only when nothing waits, is queued, in flight or asked', () => {
    const pipeline = new RequestPipeline(1, 1);
    expect(pipeline.isEmpty).toBe(true);
    const entry = command();
    pipeline.enqueue(entry);
    expect(pipeline.isEmpty).toBe(false);
    pipeline.numberNext(numbers(), true);
    expect(pipeline.isEmpty).toBe(false);
    pipeline.settle(1);
    expect(pipeline.isEmpty).toBe(true);
    pipeline.addQuery(new QueryEntry('q', Buffer.from('q'), settler));
    expect(pipeline.isEmpty).toBe(false);
  });
});
