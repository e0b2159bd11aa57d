import { HttpError } from '../../../src/http/http-error';
import { StreamLimits, type StreamLimitsOptions } from '../../../src/http/stream-limits';
import { RequestActivity } from '../../../src/request-activity';

const limitsOf = (options: StreamLimitsOptions) => new StreamLimits(options, new RequestActivity());

function refusal(enter: () => unknown): HttpError {
  try {
    enter();
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    return error as HttpError;
  }
  throw new Error('expected a refusal');
}

describe('StreamLimits', () => {
  it('lets one key run its number of streams, and refuses the next with 429 and Retry-After', () => {
    const limits = limitsOf({ perKey: 2, perInstance: 10 });
    limits.enter(1);
    limits.enter(1);

    const refused = refusal(() => limits.enter(1));
    expect(refused.status).toBe(429);
    expect(refused.headers).toEqual({ 'Retry-After': '5' });
    expect(refused.messages[0]).toMatch(
      /^at most 2 unpaged searches run at once for one key; retry after 5 s/,
    );
    expect(() => limits.enter(2)).not.toThrow();
  });

  it('refuses every key once the process runs its number of streams', () => {
    const limits = limitsOf({ perKey: 2, perInstance: 3 });
    limits.enter(1);
    limits.enter(1);
    limits.enter(2);
    expect(refusal(() => limits.enter(3)).messages[0]).toMatch(
      /^at most 3 unpaged searches run at once on this server/,
    );
  });

  it('gives the place back once, however often it is given back', () => {
    const limits = limitsOf({ perKey: 1, perInstance: 2 });
    const leave = limits.enter(1);
    leave();
    leave();
    const again = limits.enter(1);
    limits.enter(2);
    expect(() => limits.enter(3)).toThrow(HttpError);
    again();
    expect(() => limits.enter(3)).not.toThrow();
  });

  it('counts its streams in the process activity, until each is given back', () => {
    const activity = new RequestActivity();
    const limits = new StreamLimits({ perKey: 2, perInstance: 10 }, activity);
    const leave = limits.enter(1);
    limits.enter(2);
    expect(activity.streams).toBe(2);
    leave();
    leave();
    expect(activity.streams).toBe(1);
  });

  it('cuts off a client that stops reading after 30 s unless told otherwise', () => {
    expect(limitsOf({ perKey: 1, perInstance: 1 }).stallTimeoutMs).toBe(30_000);
    expect(limitsOf({ perKey: 1, perInstance: 1, stallTimeoutMs: 50 }).stallTimeoutMs).toBe(50);
  });
});
