import request from 'supertest';
import { TYPES } from '../../../src/application/ports/tokens';
import type { PersonUpdate, Transaction, UnitOfWork } from '../../../src/application/ports/unit-of-work';
import type { Person } from '../../../src/domain/person';
import { createTestApp, newPerson, type TestApp } from '../../support/app';
import { testDatabases } from '../../support/databases';
import { memoryLogger } from '../../support/memory-logger';

// What clients send that must never reach the log.
const SECRET = {
  password: 'pw-Secret-7f3a9',
  cookie: 'session-Cookie-51c2e',
  body: 'Body-Marker-e04b1',
  query: 'Query-Marker-88d3c',
  badToken: 'mdk_BadTokenMarker1b2c',
};

/** A unit of work that, when told to, fails as a driver would: the error carries what was sent. */
class LeakyFailure implements UnitOfWork {
  failing = false;
  constructor(private readonly real: UnitOfWork) {}
  run<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    if (!this.failing) return this.real.run(work);
    return Promise.reject(this.failure());
  }
  commitPersonUpdate(update: PersonUpdate): Promise<Person | null> {
    if (!this.failing) return this.real.commitPersonUpdate(update);
    return Promise.reject(this.failure());
  }
  private failure(): Error {
    return Object.assign(new Error('insert failed'), {
      query: 'UPDATE people SET first_name = $1',
      parameters: [SECRET.body],
      body: `{"first_name": "${SECRET.body}"}`,
    });
  }
}

describe.each(testDatabases)('the request log on $name', (target) => {
  let t: TestApp;
  let log: ReturnType<typeof memoryLogger>;
  let unitOfWork: LeakyFailure;

  beforeAll(async () => {
    log = memoryLogger();
    t = await createTestApp(target, {
      env: { LOG_LEVEL: 'trace' },
      overrides: { logger: log.logger },
      prepare: (container) => {
        unitOfWork = new LeakyFailure(container.get<UnitOfWork>(TYPES.UnitOfWork));
        container.rebind<UnitOfWork>(TYPES.UnitOfWork).toConstantValue(unitOfWork);
      },
    });
  });
  afterAll(() => t.close());

  it('writes one line per request with its fields, and nothing a client sent but method and path', async () => {
    const account = await t.createAccount({ password: SECRET.password });
    const token = await t.issueToken(account.username, SECRET.password);
    const bearer = `Bearer ${token}`;
    const basic = `Basic ${Buffer.from(`${account.username}:${SECRET.password}`).toString('base64')}`;
    const wrongBasic = `Basic ${Buffer.from(`${account.username}:${SECRET.password}x`).toString('base64')}`;
    const [id] = await t.addPeople([newPerson()]);
    const run = (requestId: string, send: (r: ReturnType<typeof request>) => request.Test) =>
      send(request(t.app)).set('X-Request-Id', requestId).set('Cookie', `sid=${SECRET.cookie}`);

    const answers: [string, request.Response, { route?: string; keyId?: boolean }][] = [];
    const expectLine = async (
      requestId: string,
      send: (r: ReturnType<typeof request>) => request.Test,
      expected: { route?: string; keyId?: boolean },
    ) => {
      answers.push([requestId, await run(requestId, send), expected]);
    };

    await expectLine(
      'log-search',
      (r) => r.get(`/people?last_name=${SECRET.query}`).set('Authorization', bearer),
      { route: '/people', keyId: true },
    );
    await expectLine(
      'log-patch',
      (r) =>
        r
          .patch(`/people/${id}`)
          .set('Authorization', bearer)
          .send({ person: { first_name: SECRET.body } }),
      { route: '/people/:id', keyId: true },
    );
    await expectLine(
      'log-issue',
      (r) => r.post('/keys').set('Authorization', basic).send({ name: SECRET.body }),
      {
        route: '/keys',
      },
    );
    await expectLine('log-wrong-password', (r) => r.post('/keys').set('Authorization', wrongBasic), {
      route: '/keys',
    });
    await expectLine(
      'log-bad-token',
      (r) => r.get('/people').set('Authorization', `Bearer ${SECRET.badToken}`),
      {
        route: '/people',
      },
    );
    await expectLine(
      'log-malformed',
      (r) =>
        r
          .patch(`/people/${id}`)
          .set('Authorization', bearer)
          .set('Content-Type', 'application/json')
          .send(`{"person": {"first_name": "${SECRET.body}"`),
      // The body is read after authentication, so its failure is logged with the key that sent it.
      { route: '/people/:id', keyId: true },
    );
    await expectLine(
      'log-too-large',
      (r) =>
        r
          .post('/people/search')
          .set('Authorization', bearer)
          .send({ last_name: SECRET.body.repeat(2000) }),
      {},
    );
    await expectLine(
      'log-media-type',
      (r) =>
        r
          .patch(`/people/${id}`)
          .set('Authorization', bearer)
          .set('Content-Type', 'text/plain')
          .send(SECRET.body),
      { route: '/people/:id', keyId: true },
    );
    await expectLine('log-method', (r) => r.delete('/people').set('Authorization', bearer), {
      route: '/people',
    });
    await expectLine('log-unknown', (r) => r.get('/nowhere').set('Authorization', bearer), {});

    unitOfWork.failing = true;
    await expectLine(
      'log-failure',
      (r) =>
        r
          .patch(`/people/${id}`)
          .set('Authorization', bearer)
          .send({ person: { first_name: `${SECRET.body}2` } }),
      { route: '/people/:id', keyId: true },
    );
    unitOfWork.failing = false;

    expect(answers.map(([requestId, res]) => [requestId, res.status])).toEqual([
      ['log-search', 200],
      ['log-patch', 200],
      ['log-issue', 201],
      ['log-wrong-password', 401],
      ['log-bad-token', 401],
      ['log-malformed', 400],
      ['log-too-large', 413],
      ['log-media-type', 415],
      ['log-method', 405],
      ['log-unknown', 404],
      ['log-failure', 500],
    ]);
    const issuedToken = answers[2][1].body.token as string;
    const lines = log.lines();

    for (const [requestId, res, expected] of answers) {
      const own = lines.filter((line) => line.requestId === requestId && 'status' in line);
      expect(own).toHaveLength(1);
      const [line] = own;
      // superagent keeps the request it sent on the response, untyped.
      const sent = (res as unknown as { req: { method: string; path: string } }).req;
      expect(line).toMatchObject({
        method: sent.method,
        path: sent.path.split('?')[0],
        status: res.status,
        durationMs: expect.any(Number),
        requestId,
        // supertest connects over loopback, IPv4 or its mapped IPv6 form.
        clientAddress: expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$/),
      });
      expect(line.route).toBe(expected.route);
      if (expected.keyId) expect(line.keyId).toEqual(expect.any(Number));
      else expect(line.keyId).toBeUndefined();
      for (const key of ['req', 'res', 'headers', 'body', 'query']) expect(line).not.toHaveProperty(key);
    }
    // The unexpected failure is logged for the operator, with its request id and stack.
    expect(lines).toContainEqual(
      expect.objectContaining({
        requestId: 'log-failure',
        level: 'error',
        err: expect.objectContaining({ stack: expect.any(String) }),
      }),
    );

    const text = log.text();
    for (const secret of [
      ...Object.values(SECRET),
      token,
      issuedToken,
      basic.slice('Basic '.length),
      wrongBasic.slice('Basic '.length),
    ]) {
      expect(text).not.toContain(secret);
    }
  });
});
