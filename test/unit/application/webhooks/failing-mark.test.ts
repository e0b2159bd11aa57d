import { countsAsFailure, failingMark } from '../../../../src/application/webhooks/failing-mark';

const at = (second: number) => new Date(Date.UTC(2030, 0, 1, 12, 0, second));
const success = (second: number) => ({ at: at(second), succeeded: true, failed: false });
const failure = (second: number) => ({ at: at(second), succeeded: false, failed: true });

describe('failingMark', () => {
  it('says nothing of attempts that neither succeeded nor failed', () => {
    expect(failingMark([])).toEqual({ succeeded: false, failingFrom: null });
    expect(failingMark([{ at: at(0), succeeded: false, failed: false }])).toEqual({
      succeeded: false,
      failingFrom: null,
    });
  });

  it('takes the first failure after the last success, by when the attempts began', () => {
    expect(failingMark([failure(4), success(2), failure(1), failure(3)])).toEqual({
      succeeded: true,
      failingFrom: at(3),
    });
    expect(failingMark([failure(2), failure(1)])).toEqual({ succeeded: false, failingFrom: at(1) });
    expect(failingMark([failure(1), success(2)])).toEqual({ succeeded: true, failingFrom: null });
  });

  it('counts attempts that began at the same moment in the order given', () => {
    expect(failingMark([success(0), failure(0)])).toEqual({ succeeded: true, failingFrom: at(0) });
    expect(failingMark([failure(0), success(0)])).toEqual({ succeeded: true, failingFrom: null });
  });
});

describe('countsAsFailure', () => {
  it('counts giving up and a retry for the receiver’s fault, not a success nor a retry for ours', () => {
    const later = at(5);
    expect(countsAsFailure({ status: 'failed', disableSubscription: null })).toBe(true);
    expect(countsAsFailure({ status: 'pending', nextAttemptAt: later, countsAsFailure: true })).toBe(true);
    expect(countsAsFailure({ status: 'pending', nextAttemptAt: later, countsAsFailure: false })).toBe(false);
    expect(countsAsFailure({ status: 'delivered' })).toBe(false);
  });
});
