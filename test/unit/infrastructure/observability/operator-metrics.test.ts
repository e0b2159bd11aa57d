import { LoggedOperatorEvents } from '../../../../src/infrastructure/observability/logged-operator-events';
import { OperatorMetrics } from '../../../../src/infrastructure/observability/operator-metrics';
import { memoryLogger } from '../../../support/memory-logger';

describe('the operator metrics', () => {
  it('counts password-check refusals without a log line each (a storm would write one per request)', async () => {
    const log = memoryLogger();
    const metrics = new OperatorMetrics(async () => []);
    const events = new LoggedOperatorEvents(log.logger, metrics);
    events.passwordCheckRefused();
    events.passwordCheckRefused();
    expect(await metrics.registry.metrics()).toMatch(/^signin_password_check_refusals_total 2$/m);
    expect(log.lines()).toEqual([]);
  });

  it('reads the webhook backlog once per scrape for its three gauges, and drops them when it cannot', async () => {
    let reads = 0;
    let failing = false;
    const metrics = new OperatorMetrics(async () => {
      reads += 1;
      if (failing) throw new Error('the database is unavailable');
      return [
        {
          subscriptionId: 4,
          disabled: true,
          changes: 7,
          orMore: false,
          oldestAt: new Date(Date.now() - 90_000),
          oldestSeq: 12,
        },
      ];
    });
    const text = await metrics.registry.metrics();
    expect(reads).toBe(1);
    expect(text).toMatch(/^webhook_undelivered_changes\{subscription="4"\} 7$/m);
    expect(text).toMatch(/^webhook_subscription_disabled\{subscription="4"\} 1$/m);
    const age = Number(/^webhook_oldest_undelivered_age_seconds\{subscription="4"\} (\S+)$/m.exec(text)?.[1]);
    expect(age).toBeGreaterThanOrEqual(90);
    expect(age).toBeLessThan(100);

    failing = true;
    const without = await metrics.registry.metrics();
    expect(without).not.toMatch(/subscription="4"/);
    // The scrape itself still answers, with every other figure.
    expect(without).toMatch(/^webhook_deliveries_total\{outcome="delivered"\} 0$/m);
  });
});
