import { type DomainApp, startDomainApp } from '../__fixtures__/domain-app.fixture';
import { GroupsController } from './groups.controller';

describe('groups module (through the apply path)', () => {
  let app: DomainApp;
  beforeEach(async () => {
    app = await startDomainApp();
    const admin = await app.session(1);
    await admin.command('streams.create', { name: 's' });
  });
  afterEach(() => app.close());

  const members = () => app.module.get(GroupsController).get({ stream: 's', group: 'g' }).members;

  it('joins members of a group of an existing stream', async () => {
    const a = await app.session(1);
    const b = await app.session(1);
    expect(await a.command('groups.join', { stream: 's', group: 'g' })).toEqual({
      ok: true,
      result: { members: [a.client] },
    });
    const joined = await b.command('groups.join', { stream: 's', group: 'g' });
    expect(joined).toEqual({ ok: true, result: { members: [a.client, b.client].sort() } });
    expect(await a.command('groups.join', { stream: 'nope', group: 'g' })).toMatchObject({
      error: { code: 'STREAM_NOT_FOUND' },
    });
  });

  it('ends a membership when the connection ends (journaled release)', async () => {
    const a = await app.session(1);
    await a.command('groups.join', { stream: 's', group: 'g' });
    await a.release();
    expect(members()).toEqual([]);
  });

  it('ends a membership when the session logs out', async () => {
    const a = await app.session(1);
    await a.command('groups.join', { stream: 's', group: 'g' });
    await a.logout();
    expect(members()).toEqual([]);
  });

  it('ends every membership at boot: after a restart no connection exists', async () => {
    const a = await app.session(1);
    await a.command('groups.join', { stream: 's', group: 'g' });
    expect(members()).toEqual([a.client]);
    app = await app.restart();
    expect(members()).toEqual([]);
  });
});
