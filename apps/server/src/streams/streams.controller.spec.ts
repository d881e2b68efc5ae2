import { type DomainApp, startDomainApp } from '../__fixtures__/domain-app.fixture';
import { StreamsController } from './streams.controller';

describe('streams module (through the apply path)', () => {
  let app: DomainApp;
  beforeAll(async () => (app = await startDomainApp()));
  afterAll(() => app.close());

  it('creates, lists and deletes streams with their refusals', async () => {
    const admin = await app.session(1);
    expect(await admin.command('streams.create', { name: 'orders' })).toEqual({
      ok: true,
      result: { id: 1, name: 'orders' },
    });
    expect(await admin.command('streams.create', { name: 'orders' })).toMatchObject({
      error: { code: 'STREAM_EXISTS' },
    });
    expect(await admin.command('streams.create', { name: '' })).toMatchObject({
      error: { code: 'INVALID_ARGUMENT' },
    });
    await admin.command('streams.create', { name: 'events' });
    const streams = app.module.get(StreamsController);
    expect(streams.list()).toEqual([
      { id: 1, name: 'orders' },
      { id: 2, name: 'events' },
    ]);
    expect(await admin.command('streams.delete', { name: 'orders' })).toEqual({
      ok: true,
      result: {},
    });
    expect(await admin.command('streams.delete', { name: 'orders' })).toMatchObject({
      error: { code: 'STREAM_NOT_FOUND' },
    });
    expect(await admin.command('streams.create', { name: 'orders' })).toEqual({
      ok: true,
      result: { id: 3, name: 'orders' },
    });
  });
});
