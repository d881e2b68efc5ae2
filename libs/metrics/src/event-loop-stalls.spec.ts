import { eventually } from '@once/testing';
import { EventLoopStalls } from './event-loop-stalls';
import { spinMainThread } from './__fixtures__/spin.fixture';

/** Keeps the main thread busy, turning no event loop, for `ms`. */
describe('EventLoopStalls', () => {
  let stalls: EventLoopStalls;

  beforeEach(() => {
    stalls = new EventLoopStalls();
  });

  afterEach(() => stalls.stop());

  it('reads zeros before it samples anything, and numbers of at least 0 once it does', async () => {
    expect(stalls.takeWindow()).toEqual({ maxMs: 0, p99Ms: 0, samples: 0, maxOnCpuMs: 0 });
    expect(stalls.peakMs).toBe(0);

    stalls.start();
    await eventually(() => stalls.takeWindow().samples > 0, 'a sample');

    const window = stalls.takeWindow();
    expect(window.maxMs).toBeGreaterThanOrEqual(0);
    expect(window.p99Ms).toBeGreaterThanOrEqual(0);
    expect(window.maxOnCpuMs).toBeGreaterThanOrEqual(0);
    expect(window.maxOnCpuMs).toBeLessThanOrEqual(window.maxMs);
    expect(stalls.peakMs).toBeGreaterThanOrEqual(0);
  });

  it('given a blocked main thread, when the loop turns again, then the window and the peak grew past every delay seen before', async () => {
    stalls.start();
    await eventually(() => stalls.peakMs >= 0 && stalls.takeWindow().samples > 0, 'a sample');
    const peakBefore = stalls.peakMs;
    stalls.takeWindow();

    // Longer than any delay this process showed so far, whatever the machine's load.
    spinMainThread(peakBefore + 100);
    await eventually(() => stalls.peakMs > peakBefore, 'the blocked turn sampled');

    const window = stalls.takeWindow();
    expect(window.maxMs).toBeGreaterThan(peakBefore);
    expect(window.maxMs).toBe(stalls.peakMs);
    expect(window.p99Ms).toBeGreaterThan(0);
    expect(window.p99Ms).toBeLessThanOrEqual(window.maxMs);
    // The spin was this process computing: part of the delay counts as CPU time, never more.
    expect(window.maxOnCpuMs).toBeGreaterThan(0);
    expect(window.maxOnCpuMs).toBeLessThanOrEqual(window.maxMs);
  });

  it('given a main thread that sleeps rather than computes, then the delay counts little CPU time', async () => {
    stalls.start();
    await eventually(() => stalls.takeWindow().samples > 0, 'a sample');
    const peakBefore = stalls.peakMs;

    // Atomics.wait blocks the thread without using a CPU, like a descheduled process.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, peakBefore + 200);
    await eventually(() => stalls.peakMs > peakBefore, 'the blocked turn sampled');

    const window = stalls.takeWindow();
    expect(window.maxOnCpuMs).toBeLessThan(window.maxMs);
  });

  it('starts each window empty and keeps the peak across reads', async () => {
    stalls.start();
    spinMainThread(50);
    await eventually(() => stalls.peakMs > 0, 'the blocked turn sampled');
    const peak = stalls.peakMs;
    stalls.takeWindow();

    const next = stalls.takeWindow();
    expect(next.samples).toBe(0);
    expect(next.maxMs).toBe(0);
    expect(stalls.peakMs).toBe(peak);
  });

  it('stops sampling when stopped, and starts again from an empty peak', async () => {
    stalls.start();
    spinMainThread(20);
    await eventually(() => stalls.peakMs > 0, 'the blocked turn sampled');
    stalls.stop();
    expect(stalls.running).toBe(false);
    stalls.takeWindow();
    spinMainThread(20);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stalls.takeWindow().samples).toBe(0);

    stalls.start();
    expect(stalls.running).toBe(true);
    expect(stalls.peakMs).toBe(0);
  });

  it('refuses a resolution under 1 ms', () => {
    expect(() => new EventLoopStalls({ resolutionMs: 0 })).toThrow(RangeError);
    expect(() => new EventLoopStalls({ resolutionMs: Number.NaN })).toThrow(RangeError);
  });
});
