import { type SessionBinding } from '@once/framework';
import { type Bindable, SessionBindings } from './session-bindings';

const A = 'a'.repeat(32);
const B = 'b'.repeat(32);

class Connection implements Bindable {
  binding: SessionBinding | undefined;
  constructor(readonly name: string) {}
}

type Name = 'c1' | 'c2' | 'c3';

/** One step of a scenario, as the gateway takes it. */
type Step =
  /** A REGISTER committed on the connection, or it resumed with a token. */
  | readonly ['bind', Name, client: string, epoch: number]
  /** The connection closed, was evicted, or its session ended. */
  | readonly ['unbind', Name]
  /** A resume with a token: the previous holder is unbound, then the connection binds (bindResumed). */
  | readonly ['supersede', Name, client: string, epoch: number];

interface Expected {
  /** The holder of client A (by name), if any. */
  readonly holder: Name | undefined;
  /** Every connection bound to client A (by name, sorted). */
  readonly boundTo: readonly Name[];
  /** Each connection's binding as `client-letter@epoch`, or undefined. */
  readonly bindings: Readonly<Record<Name, string | undefined>>;
}

function play(steps: readonly Step[]): {
  bindings: SessionBindings<Connection>;
  connections: Record<Name, Connection>;
  unbound: Array<{ binding: SessionBinding | undefined; wasHolder: boolean }>;
} {
  const bindings = new SessionBindings<Connection>();
  const connections = {
    c1: new Connection('c1'),
    c2: new Connection('c2'),
    c3: new Connection('c3'),
  };
  const unbound: Array<{ binding: SessionBinding | undefined; wasHolder: boolean }> = [];
  for (const step of steps) {
    const connection = connections[step[1]];
    switch (step[0]) {
      case 'bind':
        bindings.bind(connection, { client: step[2], epoch: step[3], userId: 1 });
        break;
      case 'unbind':
        unbound.push(bindings.unbind(connection));
        break;
      case 'supersede': {
        const previous = bindings.holder(step[2]);
        if (previous && previous !== connection) unbound.push(bindings.unbind(previous));
        bindings.bind(connection, { client: step[2], epoch: step[3], userId: 1 });
        break;
      }
    }
  }
  return { bindings, connections, unbound };
}

const label = (binding: SessionBinding | undefined) =>
  binding && `${binding.client === A ? 'A' : 'B'}@${binding.epoch}`;

describe('SessionBindings', () => {
  it.each<[string, readonly Step[], Expected]>([
    [
      'a REGISTER commits on a connection: it holds the session',
      [['bind', 'c1', A, 5]],
      { holder: 'c1', boundTo: ['c1'], bindings: { c1: 'A@5', c2: undefined, c3: undefined } },
    ],
    [
      'a REGISTER of the same client on another connection: the new one holds, the old stays bound to its epoch (fenced)',
      [
        ['bind', 'c1', A, 5],
        ['bind', 'c2', A, 9],
      ],
      { holder: 'c2', boundTo: ['c1', 'c2'], bindings: { c1: 'A@5', c2: 'A@9', c3: undefined } },
    ],
    [
      'a third REGISTER fences both earlier holders',
      [
        ['bind', 'c1', A, 5],
        ['bind', 'c2', A, 9],
        ['bind', 'c3', A, 12],
      ],
      {
        holder: 'c3',
        boundTo: ['c1', 'c2', 'c3'],
        bindings: { c1: 'A@5', c2: 'A@9', c3: 'A@12' },
      },
    ],
    [
      'a REGISTER again on the holding connection: the epoch moves, still one binding',
      [
        ['bind', 'c1', A, 5],
        ['bind', 'c1', A, 9],
      ],
      { holder: 'c1', boundTo: ['c1'], bindings: { c1: 'A@9', c2: undefined, c3: undefined } },
    ],
    [
      'a resume with a token on another connection supersedes the holder (it is unbound)',
      [
        ['bind', 'c1', A, 5],
        ['supersede', 'c2', A, 5],
      ],
      { holder: 'c2', boundTo: ['c2'], bindings: { c1: undefined, c2: 'A@5', c3: undefined } },
    ],
    [
      'a resume supersedes the holder but not a fenced connection',
      [
        ['bind', 'c1', A, 5],
        ['bind', 'c2', A, 9],
        ['supersede', 'c3', A, 9],
      ],
      { holder: 'c3', boundTo: ['c1', 'c3'], bindings: { c1: 'A@5', c2: undefined, c3: 'A@9' } },
    ],
    [
      'the holder closes: nobody holds the session, the fenced connection is still bound',
      [
        ['bind', 'c1', A, 5],
        ['bind', 'c2', A, 9],
        ['unbind', 'c2'],
      ],
      { holder: undefined, boundTo: ['c1'], bindings: { c1: 'A@5', c2: undefined, c3: undefined } },
    ],
    [
      'a fenced connection closes: the holder keeps the session',
      [
        ['bind', 'c1', A, 5],
        ['bind', 'c2', A, 9],
        ['unbind', 'c1'],
      ],
      { holder: 'c2', boundTo: ['c2'], bindings: { c1: undefined, c2: 'A@9', c3: undefined } },
    ],
    [
      'the holder binds another client: it leaves the first session (nobody holds it)',
      [
        ['bind', 'c1', A, 5],
        ['bind', 'c1', B, 7],
      ],
      { holder: undefined, boundTo: [], bindings: { c1: 'B@7', c2: undefined, c3: undefined } },
    ],
    [
      'a fenced connection binds another client: the holder of the first keeps it',
      [
        ['bind', 'c1', A, 5],
        ['bind', 'c2', A, 9],
        ['bind', 'c1', B, 7],
      ],
      { holder: 'c2', boundTo: ['c2'], bindings: { c1: 'B@7', c2: 'A@9', c3: undefined } },
    ],
    [
      'every connection unbinds: nothing is left of the session',
      [
        ['bind', 'c1', A, 5],
        ['bind', 'c2', A, 9],
        ['unbind', 'c1'],
        ['unbind', 'c2'],
      ],
      { holder: undefined, boundTo: [], bindings: { c1: undefined, c2: undefined, c3: undefined } },
    ],
    [
      'unbinding a connection that holds nothing changes nothing',
      [
        ['bind', 'c1', A, 5],
        ['unbind', 'c3'],
      ],
      { holder: 'c1', boundTo: ['c1'], bindings: { c1: 'A@5', c2: undefined, c3: undefined } },
    ],
  ])('%s', (_row, steps, expected) => {
    const { bindings, connections } = play(steps);
    expect({
      holder: bindings.holder(A)?.name,
      boundTo: bindings
        .boundTo(A)
        .map((connection) => connection.name)
        .sort(),
      bindings: {
        c1: label(connections.c1.binding),
        c2: label(connections.c2.binding),
        c3: label(connections.c3.binding),
      },
    }).toEqual(expected);
  });

  it.each<[string, readonly Step[], Name, { binding: string | undefined; wasHolder: boolean }]>([
    ['the holder', [['bind', 'c1', A, 5]], 'c1', { binding: 'A@5', wasHolder: true }],
    [
      'a fenced connection',
      [
        ['bind', 'c1', A, 5],
        ['bind', 'c2', A, 9],
      ],
      'c1',
      { binding: 'A@5', wasHolder: false },
    ],
    [
      'a connection never bound',
      [['bind', 'c1', A, 5]],
      'c2',
      { binding: undefined, wasHolder: false },
    ],
    [
      'a connection already unbound',
      [
        ['bind', 'c1', A, 5],
        ['unbind', 'c1'],
      ],
      'c1',
      { binding: undefined, wasHolder: false },
    ],
  ])(
    'unbind of %s says what it had and whether it held the session',
    (_row, steps, name, expected) => {
      const { bindings, connections } = play(steps);
      const { binding, wasHolder } = bindings.unbind(connections[name]);
      expect({ binding: label(binding), wasHolder }).toEqual(expected);
      expect(connections[name].binding).toBeUndefined();
    },
  );

  it('boundTo returns a copy: unbinding while iterating it (a session ends) visits every connection', () => {
    const { bindings } = play([
      ['bind', 'c1', A, 5],
      ['bind', 'c2', A, 9],
      ['bind', 'c3', A, 12],
    ]);
    const visited: string[] = [];
    for (const connection of bindings.boundTo(A)) {
      visited.push(connection.name);
      bindings.unbind(connection);
    }
    expect(visited.sort()).toEqual(['c1', 'c2', 'c3']);
    expect(bindings.boundTo(A)).toEqual([]);
    expect(bindings.holder(A)).toBeUndefined();
  });

  it('keeps clients apart', () => {
    const { bindings } = play([
      ['bind', 'c1', A, 5],
      ['bind', 'c2', B, 6],
    ]);
    expect(bindings.holder(A)?.name).toBe('c1');
    expect(bindings.holder(B)?.name).toBe('c2');
    expect(bindings.boundTo(B).map((connection) => connection.name)).toEqual(['c2']);
  });
});
