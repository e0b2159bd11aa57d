import express from 'express';
import request from 'supertest';
import { RequestActivity } from '../../../src/http/request-activity';

describe('RequestActivity', () => {
  it('counts a request from its arrival until its answer, and tells how long it has been quiet', async () => {
    const activity = new RequestActivity();
    const seen: number[] = [];
    const app = express();
    app.use(activity.middleware);
    app.get('/', (_req, res) => {
      seen.push(activity.inFlight);
      res.json({ ok: true });
    });
    expect(activity.inFlight).toBe(0);
    expect(activity.quietFor()).toBe(Number.POSITIVE_INFINITY);

    await Promise.all([request(app).get('/'), request(app).get('/')]);

    expect(Math.max(...seen)).toBeGreaterThanOrEqual(1);
    expect(activity.inFlight).toBe(0);
    expect(activity.quietFor()).toBeLessThan(1000);
  });
});
