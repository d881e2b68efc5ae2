import { sampleOf } from './metrics-scrape';

describe('sampleOf', () => {
  const text = [
    '# HELP once_sessions Sessions in the client table',
    '# TYPE once_sessions gauge',
    'once_sessions_evicted_total{reason="expired"} 4',
    'once_sessions 12',
    'once_commits_total{status="ok"} 30',
  ].join('\n');

  it('reads the unlabelled sample of the name, not one of a longer name', () => {
    expect(sampleOf(text, 'once_sessions')).toBe(12);
  });

  it('is undefined when the sample is absent', () => {
    expect(sampleOf(text, 'once_connections')).toBeUndefined();
  });
});
