import { ZERO_CLIENT_ID } from '@once/protocol/internal';
import { type ApplyOutcome, quietOutcome } from './apply-outcome';
import { SILENT_LOGGER } from './engine-logger';
import { PendingSubmissions } from './pending-submissions';
import { releaseDraft } from './__fixtures__/entry-drafts.fixture';

function outcomeAt(op: number): ApplyOutcome {
  return quietOutcome({ ...releaseDraft(ZERO_CLIENT_ID), op, timestamp: BigInt(op) }, []);
}

describe('PendingSubmissions', () => {
  it('calls each submitter back once: the outcome, or else the failure', () => {
    const pending = new PendingSubmissions(SILENT_LOGGER);
    const calls: string[] = [];
    pending.add(
      1,
      (outcome) => calls.push(`applied ${outcome.entry.op}`),
      (error) => calls.push(`failed 1: ${error.message}`),
    );
    pending.add(
      2,
      (outcome) => calls.push(`applied ${outcome.entry.op}`),
      (error) => calls.push(`failed 2: ${error.message}`),
    );
    pending.add(3, undefined, (error) => calls.push(`failed 3: ${error.message}`));
    pending.settle(outcomeAt(1));
    pending.failAll(new Error('disk on fire'));
    pending.settle(outcomeAt(2));
    pending.failAll(new Error('again'));
    expect(calls).toEqual(['applied 1', 'failed 2: disk on fire', 'failed 3: disk on fire']);
  });

  it('drops, without a call, submitters that gave no failure callback', () => {
    const pending = new PendingSubmissions(SILENT_LOGGER);
    const onOutcome = jest.fn();
    pending.add(1, onOutcome);
    pending.failAll(new Error('disk on fire'));
    pending.settle(outcomeAt(1));
    expect(onOutcome).not.toHaveBeenCalled();
  });

  it('keeps failing the others when one failure callback throws', () => {
    const errors: string[] = [];
    const pending = new PendingSubmissions({
      ...SILENT_LOGGER,
      error: (line) => errors.push(line),
    });
    const second = jest.fn();
    pending.add(1, undefined, () => {
      throw new Error('careless');
    });
    pending.add(2, undefined, second);
    pending.failAll(new Error('disk on fire'));
    expect(second).toHaveBeenCalledTimes(1);
    expect(errors).toHaveLength(1);
  });
});
