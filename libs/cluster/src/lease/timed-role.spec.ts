import { type LeaseRole, NO_ROLE } from './lease-role';
import { TimedRole } from './timed-role';

const holder = { node: 'n1', advertise: 'n1:7700', term: 4 };
const leader: LeaseRole = { role: 'leader', term: 4, holder };

describe('TimedRole', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function timedRole() {
    const expired: LeaseRole[] = [];
    const heard: LeaseRole[] = [];
    const role = new TimedRole(
      (role) => expired.push(role),
      (error) => {
        throw error;
      },
    );
    role.onChange((news) => heard.push(news));
    return { role, expired, heard };
  }

  it('holds a role until its validity ends, then reads none and says which role expired', () => {
    const { role, expired, heard } = timedRole();
    role.set(leader, performance.now() + 100);
    jest.advanceTimersByTime(99);
    expect(role.get()).toBe(leader);
    jest.advanceTimersByTime(1);
    expect(role.get()).toEqual(NO_ROLE);
    expect(expired).toEqual([leader]);
    expect(heard).toEqual([leader, NO_ROLE]);
  });

  it('lets a renewal push the end back without telling the listeners', () => {
    const { role, expired, heard } = timedRole();
    role.set(leader, performance.now() + 100);
    jest.advanceTimersByTime(80);
    role.set({ ...leader, holder: { ...holder } }, performance.now() + 100);
    jest.advanceTimersByTime(80);
    expect(role.get().role).toBe('leader');
    expect(heard).toEqual([leader]);
    jest.advanceTimersByTime(20);
    expect(role.get()).toEqual(NO_ROLE);
    expect(expired).toHaveLength(1);
  });

  it('tells of a takeover, and keeps the last role for a release after close', () => {
    const { role, heard } = timedRole();
    const follower: LeaseRole = { role: 'follower', holder };
    role.set(follower, performance.now() + 100);
    role.set(leader, performance.now() + 100);
    role.close();
    expect(heard).toEqual([follower, leader]);
    expect(role.last()).toBe(leader);
    jest.advanceTimersByTime(1000);
    expect(role.last()).toBe(leader); // no timer after close…
    expect(role.get()).toEqual(NO_ROLE); // …but the clock still ends it
  });
});
