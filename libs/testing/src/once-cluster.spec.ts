import { OnceCluster } from './once-cluster';

describe('OnceCluster.start', () => {
  it.each([
    ['ports', { ports: [4001, 4002] }],
    ['advertise', { advertise: ['127.0.0.1:5001', '127.0.0.1:5002', '127.0.0.1:5003', 'x:1'] }],
    ['dataDirs', { dataDirs: ['/tmp/a'] }],
  ])(
    'given %s that does not name each of the 3 nodes, then it refuses before it starts any process',
    async (name, options) => {
      await expect(OnceCluster.start({ nodes: 3, ...options })).rejects.toThrow(
        new RangeError(`${name} lists ${Object.values(options)[0].length} nodes, not 3`),
      );
    },
  );
});
