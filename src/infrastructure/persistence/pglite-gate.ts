import type { PGlite } from '@electric-sql/pglite';
import {
  ABANDON_BATCH,
  BackendTracker,
  FrontendMessages,
  fatalError,
  NO_ENCRYPTION,
  ProtocolViolation,
  ROLLBACK,
} from './pg-wire';
import { SessionLock } from './session-lock';

/** The other end of a connection: where PGlite's answers go. */
export interface GatePeer {
  write(data: Uint8Array): void;
  /** The connection is over: the client left, or is being cut off. */
  end(): void;
}

/** For a connection from another process (the command-line tool beside the service). */
export interface VisitorOptions {
  /** How long it may hold the session without sending anything before it is cut off. */
  idleMs: number;
  /** Told when it is cut off for that. */
  onIdleCut?: () => void;
}

// An import sends a thousand people's rows in one message: a few hundred kilobytes.
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/**
 * PGlite is one PostgreSQL session. The gate lets several connections share it in turn: this
 * process's own (pg's `stream`, see LocalPgStream) and, while the service runs, the command-line
 * tool's over a private socket. A connection takes the session with its first message and keeps
 * it until PGlite is idle again (ReadyForQuery 'I'): a transaction, or a statement with its
 * Parse..Sync batch, never has another connection's statements land inside it. The others wait
 * their turn, first come first served.
 */
export class PgliteGate {
  readonly lock = new SessionLock<GateSession>();
  private readonly visitors = new Set<GateSession>();
  private readonly visitorDone: (() => void)[] = [];

  constructor(
    readonly pglite: PGlite,
    readonly maxMessageBytes = MAX_MESSAGE_BYTES,
  ) {}

  /** A new connection; `visitor` when it comes from another process. */
  open(peer: GatePeer, visitor?: VisitorOptions): GateSession {
    const session = new GateSession(this, peer, visitor ?? null);
    if (visitor !== undefined) {
      this.visitors.add(session);
      void session.ended.then(() => this.visitors.delete(session));
    }
    return session;
  }

  get visitorCount(): number {
    return this.visitors.size;
  }

  /**
   * Called whenever a visitor's statement or transaction is over: what it committed is visible
   * now, and caches of this process must not outlive it. Called before the visitor hears so.
   */
  onVisitorDone(listener: () => void): void {
    this.visitorDone.push(listener);
  }

  /** Ends every visitor's connection once it holds no transaction; resolves when all are gone. */
  async closeVisitors(): Promise<void> {
    const sessions = [...this.visitors];
    for (const session of sessions) session.closeWhenIdle();
    await Promise.all(sessions.map((session) => session.ended));
  }

  /** For GateSession. */
  visitorFinished(): void {
    for (const listener of this.visitorDone) listener();
  }
}

/** One connection's turn-taking on the shared session. */
export class GateSession {
  readonly ended: Promise<void>;
  private readonly messages: FrontendMessages;
  /** The client's messages are being run; `drained` settles when that stops. */
  private draining = false;
  private drained: Promise<void> = Promise.resolve();
  private closing: Promise<void> | null = null;
  private leaveWhenIdle = false;
  /** PGlite was left in a transaction, or in a batch not yet ended by Sync, by this connection. */
  private unfinished = false;
  private idleTimer: NodeJS.Timeout | undefined;
  private markEnded!: () => void;

  constructor(
    private readonly gate: PgliteGate,
    private readonly peer: GatePeer,
    private readonly visitor: VisitorOptions | null,
  ) {
    this.messages = new FrontendMessages(gate.maxMessageBytes);
    this.ended = new Promise((resolve) => {
      this.markEnded = resolve;
    });
  }

  /** Bytes from the client; its messages run in order, each once the session is this one's. */
  receive(chunk: Buffer): void {
    if (this.closing !== null) return;
    this.messages.push(chunk);
    if (this.draining) return;
    this.draining = true;
    this.drained = this.drain();
  }

  /** Ends the connection now; a transaction it left open is rolled back. Never rejects. */
  close(): Promise<void> {
    this.closing ??= this.leave();
    return this.closing;
  }

  /** Ends the connection as soon as it holds no transaction (at once if it holds none now). */
  closeWhenIdle(): void {
    if (this.gate.lock.holder === this) this.leaveWhenIdle = true;
    else void this.close();
  }

  private async drain(): Promise<void> {
    try {
      for (let message = this.messages.next(); message !== null; message = this.messages.next()) {
        if (this.closing !== null) return;
        switch (message.kind) {
          case 'encryption-request':
            this.peer.write(NO_ENCRYPTION);
            break;
          case 'cancel':
          case 'terminate':
            void this.close();
            return;
          default:
            await this.run(message.bytes);
        }
      }
    } catch (error) {
      if (error instanceof ProtocolViolation)
        this.peer.write(fatalError('08P01', `protocol violation: ${error.message}`));
      void this.close();
    } finally {
      // In the same step as the last look for a message: bytes arriving later start a new drain.
      this.draining = false;
    }
  }

  private async run(message: Uint8Array): Promise<void> {
    clearTimeout(this.idleTimer);
    await this.gate.lock.acquire(this);
    // Gone while it waited its turn: leave() releases the session.
    if (this.closing !== null) return;
    // Until PGlite says otherwise, including when it fails halfway.
    this.unfinished = true;
    // Nothing reaches a connection once it is closing (its client may be gone).
    const idle = await this.execute(message, (data) => {
      if (this.closing === null) this.peer.write(data);
    });
    this.unfinished = !idle;
    if (idle) {
      this.gate.lock.release(this);
      if (this.leaveWhenIdle) void this.close();
    } else if (this.visitor !== null) {
      const { idleMs, onIdleCut } = this.visitor;
      this.idleTimer = setTimeout(() => {
        onIdleCut?.();
        void this.close();
      }, idleMs);
    }
  }

  /** Runs one message; answers whether PGlite is idle after it. */
  private async execute(message: Uint8Array, answer: (data: Uint8Array) => void): Promise<boolean> {
    const tracker = new BackendTracker();
    const { pglite } = this.gate;
    await pglite.runExclusive(() =>
      pglite.execProtocolRawStream(message, {
        onRawData: (data) => {
          // Before the visitor hears that its transaction is over, so that no one can act on it
          // while this process still serves what it cached before.
          if (tracker.push(data) && this.visitor !== null) this.gate.visitorFinished();
          // A copy: `data` is a view of PGlite's buffer, which its next chunk overwrites, while a
          // socket keeps what it could not send at once (an answer of more than ~200 KB) and pg
          // keeps a message's first part until the rest arrives. Without it, large answers
          // reached the client garbled and it waited for ever.
          answer(data.slice());
        },
      }),
    );
    return tracker.status === 'I';
  }

  private async leave(): Promise<void> {
    clearTimeout(this.idleTimer);
    this.peer.end();
    // A message already running finishes; one still waiting for the session stops once it has it.
    await this.drained;
    if (this.gate.lock.holder === this) {
      try {
        if (this.unfinished) await this.abandonTransaction();
      } finally {
        this.gate.lock.release(this);
      }
    }
    this.markEnded();
  }

  /** Rolls back what the connection left open, from any state PGlite can be in between messages. */
  private async abandonTransaction(): Promise<void> {
    const discard = () => undefined;
    try {
      let idle = false;
      for (const message of ABANDON_BATCH) idle = await this.execute(message, discard);
      if (!idle) await this.execute(ROLLBACK, discard);
    } catch {
      // PGlite itself failed (closed under us): there is nothing left to roll back.
    }
  }
}
