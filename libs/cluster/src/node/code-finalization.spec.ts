import { type CodeSupport, manifestOf } from '@once/engine/internal';
import { type AdvertisedCode, type NodeInfo, decodeNodeInfo, encodeNodeInfo } from '../heartbeat';
import { ClusterKeyring } from '../key';
import { advertisedCodeOf, nodesBlocking } from './code-finalization';

function support(ledger: number, commands: string[] = ['ledger.deposit']): CodeSupport {
  return {
    states: new Map([['ledger', ledger]]),
    commands: new Set(commands),
    owners: new Map(commands.map((pattern) => [pattern, 'ledger'])),
    retiredStates: new Set(),
    retiredCommands: new Set(),
  };
}

function node(code?: CodeSupport): NodeInfo {
  const info: NodeInfo = { advertise: '127.0.0.1:1', startedAt: 1 };
  return code ? { ...info, code: advertisedCodeOf(code) } : info;
}

describe('rolling upgrades: which live nodes hold a new manifest back', () => {
  const v2 = manifestOf(support(2, ['ledger.deposit', 'ledger.fee']));

  it('given every other live node runs code that provides it, then none', () => {
    const live = new Map([
      ['node1', node(support(1))],
      ['node2', node(support(2, ['ledger.deposit', 'ledger.fee']))],
      ['node3', node(support(3, ['ledger.deposit', 'ledger.fee']))],
    ]);
    expect(nodesBlocking(v2, live, 'node1')).toEqual([]);
  });

  it('given a node at an older version, one without a command, and one that does not say, then each by name and why', () => {
    const live = new Map([
      ['node3', node()],
      ['node2', node(support(2))],
      ['node1', node(support(1, ['ledger.deposit', 'ledger.fee']))],
    ]);
    expect(nodesBlocking(v2, live, 'self')).toEqual([
      { node: 'node1', reason: 'it provides "ledger" at version 1, not 2' },
      { node: 'node2', reason: 'it does not provide the command "ledger.fee"' },
      { node: 'node3', reason: 'its build does not advertise the versions it provides' },
    ]);
  });

  it('advertises the code in the heartbeat and reads it back; a heartbeat without it still reads', () => {
    const seal = { keyring: new ClusterKeyring([Buffer.alloc(32, 1)]), bucket: 'B' };
    const info = node(support(2));
    expect(decodeNodeInfo(encodeNodeInfo(info, seal, 'n1'), seal, 'n1')).toEqual(info);
    const older = encodeNodeInfo({ advertise: null, startedAt: 5 }, seal, 'n1');
    expect(decodeNodeInfo(older, seal, 'n1')).toEqual({ advertise: null, startedAt: 5 });
    const odd = encodeNodeInfo(
      { advertise: null, startedAt: 5, code: { states: 1 } as unknown as AdvertisedCode },
      seal,
      'n1',
    );
    expect(decodeNodeInfo(odd, seal, 'n1')).toEqual({ advertise: null, startedAt: 5 });
  });
});
