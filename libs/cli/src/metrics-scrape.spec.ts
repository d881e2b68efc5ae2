import { type Server, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { metricsEndpointOf, sampleOf, scrapeSessions } from './metrics-scrape';

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

describe('scrapeSessions, given a metrics listener on 127.0.0.1 serving /metrics only', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url !== '/metrics') {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/plain' }).end('once_sessions 7\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('when given the base URL (as journal tail takes it), then it reads /metrics', async () => {
    await expect(scrapeSessions(base)).resolves.toBe(7);
    await expect(scrapeSessions(`${base}/`)).resolves.toBe(7);
  });

  it('when given the endpoint itself, then it reads it', async () => {
    await expect(scrapeSessions(`${base}/metrics`)).resolves.toBe(7);
  });

  it('when given another path, then it reads that path and names the HTTP failure', async () => {
    await expect(scrapeSessions(`${base}/other`)).rejects.toMatchObject({
      code: 'METRICS_UNREACHABLE',
      message: expect.stringContaining('HTTP 404'),
    });
  });

  it('when given something that is not an http URL, then it says so', async () => {
    await expect(scrapeSessions('127.0.0.1:9464')).rejects.toMatchObject({ code: 'INVALID_URL' });
  });
});

describe('metricsEndpointOf', () => {
  it('keeps the scheme, host and port of the URL it completes', () => {
    expect(metricsEndpointOf('https://ops.example:9464').href).toBe(
      'https://ops.example:9464/metrics',
    );
  });
});
