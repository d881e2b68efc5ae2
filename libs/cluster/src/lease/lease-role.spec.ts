import { NO_ROLE, type LeaseRole, sameRole } from './lease-role';

const n1 = { node: 'n1', advertise: 'a:1', term: 3 };

describe('sameRole', () => {
  const leader: LeaseRole = { role: 'leader', term: 3, holder: n1 };
  const follower: LeaseRole = { role: 'follower', holder: n1 };

  it('holds for a renewal: same role, holder, term and address', () => {
    expect(sameRole(leader, { role: 'leader', term: 3, holder: { ...n1 } })).toBe(true);
    expect(sameRole(follower, { role: 'follower', holder: { ...n1 } })).toBe(true);
    expect(sameRole(NO_ROLE, { role: 'none' })).toBe(true);
  });

  it('fails for a takeover, a new term, a new address or another role', () => {
    expect(sameRole(follower, { role: 'follower', holder: { ...n1, node: 'n2' } })).toBe(false);
    expect(sameRole(follower, { role: 'follower', holder: { ...n1, term: 4 } })).toBe(false);
    expect(sameRole(follower, { role: 'follower', holder: { ...n1, advertise: null } })).toBe(
      false,
    );
    expect(sameRole(leader, follower)).toBe(false);
    expect(sameRole(leader, NO_ROLE)).toBe(false);
    expect(sameRole(NO_ROLE, follower)).toBe(false);
  });
});
