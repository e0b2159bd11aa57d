import { Overloaded } from '../../domain/errors';

export interface PasswordCheckQueueOptions {
  /** Tasks running at once. */
  concurrency: number;
  /** How long a bounded task may wait for its turn before it is refused. */
  maxWaitMs: number;
}

export interface TaskTurn {
  /** Tasks of one lane never run at once. */
  lane?: string;
  /** Whose task it is: among waiting tasks, the one whose shares were served least recently starts first. */
  shares?: string[];
  /** Refused with Overloaded when it could not start within maxWaitMs. */
  bounded?: boolean;
}

interface Waiting {
  lane: string | undefined;
  shares: string[];
  start: () => void;
  timer: NodeJS.Timeout | undefined;
}

/** Seconds a client refused for a full queue is asked to wait: by then the queue has turned over. */
const RETRY_AFTER_SECONDS = 1;

/**
 * Runs at most `concurrency` tasks at once (bcrypt on half the cores: libuv would otherwise run
 * four hashes at a time and take every core from the lookups). Waiting tasks are not served in
 * arrival order but fairly: a task whose lane is busy waits, and among the others the one whose
 * shares (its username and client address) were served least recently starts first, arrival
 * order breaking ties. So ten queued guesses for one username or from one address delay another
 * client's sign-in by at most one check, not ten. A bounded task that cannot start within
 * `maxWaitMs` is refused rather than left to build a queue of many seconds.
 */
export class PasswordCheckQueue {
  private running = 0;
  private readonly busyLanes = new Set<string>();
  private readonly waiting: Waiting[] = [];
  /** When each share last had a task started (a counter), while it has tasks waiting or running. */
  private readonly servedAt = new Map<string, number>();
  private readonly tasksOf = new Map<string, number>();
  private started = 0;

  constructor(private readonly options: PasswordCheckQueueOptions) {}

  /** Tasks waiting for their turn. */
  get waitingCount(): number {
    return this.waiting.length;
  }

  run<T>(task: () => Promise<T>, turn: TaskTurn = {}): Promise<T> {
    const shares = turn.shares ?? [];
    for (const share of shares) this.tasksOf.set(share, (this.tasksOf.get(share) ?? 0) + 1);
    return new Promise<T>((resolve, reject) => {
      const entry: Waiting = {
        lane: turn.lane,
        shares,
        timer: undefined,
        start: () => {
          clearTimeout(entry.timer);
          this.running += 1;
          if (entry.lane !== undefined) this.busyLanes.add(entry.lane);
          this.started += 1;
          for (const share of shares) this.servedAt.set(share, this.started);
          new Promise<T>((started) => started(task())).then(resolve, reject).finally(() => {
            this.running -= 1;
            if (entry.lane !== undefined) this.busyLanes.delete(entry.lane);
            this.forget(shares);
            this.pump();
          });
        },
      };
      if (turn.bounded) {
        entry.timer = setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(entry), 1);
          this.forget(shares);
          reject(
            new Overloaded(
              `too many sign-ins at once; try again in ${RETRY_AFTER_SECONDS} second`,
              RETRY_AFTER_SECONDS,
            ),
          );
        }, this.options.maxWaitMs);
        entry.timer.unref();
      }
      this.waiting.push(entry);
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.options.concurrency) {
      const next = this.pick();
      if (next === undefined) return;
      this.waiting.splice(this.waiting.indexOf(next), 1);
      next.start();
    }
  }

  private pick(): Waiting | undefined {
    let best: Waiting | undefined;
    let bestServedAt = Number.POSITIVE_INFINITY;
    for (const entry of this.waiting) {
      if (entry.lane !== undefined && this.busyLanes.has(entry.lane)) continue;
      const servedAt = Math.max(0, ...entry.shares.map((share) => this.servedAt.get(share) ?? 0));
      // Strictly less: among equals the earliest arrival keeps its place.
      if (servedAt < bestServedAt) {
        best = entry;
        bestServedAt = servedAt;
      }
    }
    return best;
  }

  /** A task of these shares is over or gone: a share with none left is forgotten. */
  private forget(shares: string[]): void {
    for (const share of shares) {
      const left = (this.tasksOf.get(share) ?? 1) - 1;
      if (left > 0) {
        this.tasksOf.set(share, left);
      } else {
        this.tasksOf.delete(share);
        this.servedAt.delete(share);
      }
    }
  }
}
