import { clusterNames } from './cluster-names';

describe('clusterNames', () => {
  it('derives the stream, subject and bucket from the cluster name', () => {
    expect(clusterNames('once')).toEqual({
      stream: 'ONCE_once_JOURNAL',
      subject: 'once.once.journal',
      bucket: 'ONCE_once_CLUSTER',
    });
  });

  it.each(['', 'a.b', 'a b', 'a*', 'x'.repeat(65)])('refuses %j, naming the rule', (name) => {
    expect(() => clusterNames(name)).toThrow(/must be 1 to 64 letters, digits/);
  });
});
