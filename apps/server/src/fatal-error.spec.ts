import { describeError, fatalLine } from './fatal-error';

function levelDbOpenFailure(): Error {
  const corruption = Object.assign(new Error('Corruption: no meta-nextfile entry in descriptor'), {
    code: 'LEVEL_CORRUPTION',
  });
  const notOpen = Object.assign(new Error('Database failed to open', { cause: corruption }), {
    code: 'LEVEL_DATABASE_NOT_OPEN',
  });
  return Object.assign(
    new Error('data directory /d was never completely created', { cause: notOpen }),
    {
      code: 'DATA_DIR_INCOMPLETE',
    },
  );
}

describe('fatal errors', () => {
  it('are described with their code and one cause: line per link of the chain', () => {
    expect(describeError(levelDbOpenFailure())).toBe(
      [
        'data directory /d was never completely created (DATA_DIR_INCOMPLETE)',
        'cause: Database failed to open (LEVEL_DATABASE_NOT_OPEN)',
        'cause: Corruption: no meta-nextfile entry in descriptor (LEVEL_CORRUPTION)',
      ].join('\n'),
    );
  });

  it('survive a cyclic chain and non-errors', () => {
    const cyclic = new Error('a') as Error & { cause?: unknown };
    cyclic.cause = cyclic;
    expect(describeError(cyclic).split('\n')).toHaveLength(9);
    expect(describeError('plain')).toBe('plain');
  });

  it('print as text, or as one JSON line carrying the chain', () => {
    expect(fatalLine('cannot start', levelDbOpenFailure(), 'text')).toMatch(
      /^once: cannot start: data directory .*\ncause: Database failed to open .*\ncause: Corruption: no meta-nextfile entry in descriptor \(LEVEL_CORRUPTION\)\n$/,
    );
    const json = JSON.parse(fatalLine('cannot start', levelDbOpenFailure(), 'json'));
    expect(json).toMatchObject({
      level: 'fatal',
      context: 'Once',
      code: 'DATA_DIR_INCOMPLETE',
      causes: [
        'Database failed to open (LEVEL_DATABASE_NOT_OPEN)',
        'Corruption: no meta-nextfile entry in descriptor (LEVEL_CORRUPTION)',
      ],
    });
    expect(json.message).toContain('cause: Corruption: no meta-nextfile entry in descriptor');
  });
});
