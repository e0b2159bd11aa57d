import type { Logger } from 'pino';
import type { ReadinessProbe } from './readiness';

const READINESS_TIMEOUT_MS = 2000;

type Outcome = { ready: true } | { ready: false; reason: string };

/**
 * What `GET /readyz` asks. Probes that arrive while a check runs share it: a load balancer and an
 * orchestrator probing every instance every few seconds would otherwise queue two queries each on
 * the pool the requests need, unauthenticated, as fast as anyone cares to ask.
 *
 * The operator is told when readiness is lost and when it returns, one line each; the probes in
 * between only answer 503 (a stack trace per probe buried the one line that mattered).
 */
export class ReadinessCheck {
  private running: Promise<boolean> | null = null;
  private failing = false;

  constructor(
    private readonly probe: ReadinessProbe,
    private readonly logger: Logger,
    private readonly timeoutMs = READINESS_TIMEOUT_MS,
  ) {}

  ready(): Promise<boolean> {
    this.running ??= this.check().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async check(): Promise<boolean> {
    const outcome = await this.answerWithin();
    if (!outcome.ready && !this.failing) {
      this.failing = true;
      this.logger.error(
        { event: 'readiness.lost', reason: outcome.reason },
        `not ready: the service's queries fail (${outcome.reason}); /readyz answers 503 until they answer again`,
      );
    } else if (outcome.ready && this.failing) {
      this.failing = false;
      this.logger.info(
        { event: 'readiness.regained' },
        "ready again: the service's queries answer; /readyz answers 200",
      );
    }
    return outcome.ready;
  }

  private async answerWithin(): Promise<Outcome> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<Outcome>((resolve) => {
      timer = setTimeout(
        () => resolve({ ready: false, reason: `no answer within ${this.timeoutMs / 1000} s` }),
        this.timeoutMs,
      );
    });
    const query = this.probe().then(
      (): Outcome => ({ ready: true }),
      (error: unknown): Outcome => ({ ready: false, reason: describe(error) }),
    );
    try {
      return await Promise.race([query, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The error's message, with its cause's (a translated database error keeps the driver's as cause). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause =
    error.cause instanceof Error && error.cause.message !== error.message ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
