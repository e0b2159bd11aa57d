import { RequestActivity } from '../../src/request-activity';

describe('RequestActivity', () => {
  it('counts a request from its arrival until its end, and tells how long it has been quiet', () => {
    const activity = new RequestActivity();
    expect(activity.inFlight).toBe(0);
    expect(activity.quietFor()).toBe(Number.POSITIVE_INFINITY);

    const first = activity.arrived();
    const second = activity.arrived();
    expect(activity.inFlight).toBe(2);
    expect(activity.quietFor()).toBeLessThan(1000);
    first();
    second();

    expect(activity.inFlight).toBe(0);
    expect(activity.quietFor()).toBeLessThan(1000);
  });

  it('counts the long streams among the requests until each is over', () => {
    const activity = new RequestActivity();
    const request = activity.arrived();
    const stream = activity.streamStarted();
    expect([activity.inFlight, activity.streams]).toEqual([1, 1]);
    stream();
    expect([activity.inFlight, activity.streams]).toEqual([1, 0]);
    request();
    expect(activity.inFlight).toBe(0);
  });
});
