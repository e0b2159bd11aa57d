import type { PGlite } from '@electric-sql/pglite';
import {
  ABANDON_BATCH,
  BackendTracker,
  FrontendMessages,
  fatalError,
  mayChangeSession,
  NO_ENCRYPTION,
  ProtocolViolation,
  ROLLBACK,
} from './pg-wire';
import { SessionLock } from './session-lock';
import {
  applyState,
  captureState,
  discardLeftovers,
  resetToService,
  type SessionState,
  VISITOR_START,
} from './session-state';

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
  /** Told when the session could not be handed to it or taken back from it (PGlite failing). */
  onHandOverFailed?: (error: unknown) => void;
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
 *
 * What a visitor sets that outlives a transaction (SET, SET ROLE, SET SESSION AUTHORIZATION) is
 * its own: when the session passes from a visitor to anyone else, the visitor's state is read and
 * put aside and the session goes back to this process's state (see session-state.ts); when the
 * visitor's turn comes again, its state is put back. This process's connections all share
 * PGlite's start state, so passing between them costs nothing.
 */
export class PgliteGate {
  readonly lock = new SessionLock<GateSession>();
  private readonly visitors = new Set<GateSession>();
  private readonly visitorDone: (() => void)[] = [];
  /** The visitor whose state the session holds now; null: this process's own. */
  private stateHolder: GateSession | null = null;

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

  /**
   * For GateSession, with the session held and idle, before `session`'s next message: the
   * session's state becomes `session`'s. Throws when PGlite fails; the state is then still the
   * previous holder's, and the next turn tries again, so this process never runs in a visitor's.
   */
  async handOver(session: GateSession): Promise<void> {
    const target = session.isVisitor ? session : null;
    if (this.stateHolder === target) return;
    const previous = this.stateHolder;
    if (previous !== null) {
      // Read only when its turns may have changed it; the reset is unconditional, so that
      // whatever a visitor did, known or not, never reaches the next holder.
      if (previous.stateMayHaveChanged) {
        try {
          previous.setAside(await captureState(this.pglite));
        } catch {
          // Its settings cannot be kept for it (one of them cannot be read back): better it
          // ends than goes on under the service's settings without knowing.
          previous.cutOff('58000', 'its session settings could not be kept while others used the database');
        }
      }
      await resetToService(this.pglite);
      this.stateHolder = null;
    }
    if (target !== null) {
      this.stateHolder = target;
      // Fails only on a setting that cannot be put back (its role dropped meanwhile): the
      // session is reset for the next holder and the visitor cut off.
      try {
        await applyState(this.pglite, target.stateAside);
      } catch (error) {
        await resetToService(this.pglite);
        this.stateHolder = null;
        throw error;
      }
    }
  }

  /** Whether a visitor's end needs the session: its state is there, or it is the last visitor. */
  leavesSomethingBehind(session: GateSession): boolean {
    return this.stateHolder === session || (this.visitors.size === 1 && this.visitors.has(session));
  }

  /**
   * For GateSession, with the session held and idle, when a visitor has gone: its state goes,
   * and with the last visitor whatever visitors created that outlives a transaction (temporary
   * tables, prepared statements, cursors WITH HOLD, LISTEN, advisory locks).
   */
  async forget(session: GateSession): Promise<void> {
    if (this.stateHolder === session) {
      await resetToService(this.pglite);
      this.stateHolder = null;
    }
    if (this.visitors.size === 1 && this.visitors.has(session)) await discardLeftovers(this.pglite);
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
  /** A visitor's settings, role and session user while others have the session. */
  private aside: SessionState = VISITOR_START;
  private changedSinceAside = false;

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

  get isVisitor(): boolean {
    return this.visitor !== null;
  }

  /** A visitor's message since its state was last read may have changed it (mayChangeSession). */
  get stateMayHaveChanged(): boolean {
    return this.changedSinceAside;
  }

  /** For PgliteGate: what this visitor had set, while others have the session. */
  setAside(state: SessionState): void {
    this.aside = state;
    this.changedSinceAside = false;
  }

  get stateAside(): SessionState {
    return this.aside;
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

  /** Tells the client why (a FATAL ErrorResponse), then ends the connection as close() does. */
  cutOff(code: string, message: string): void {
    if (this.closing === null) this.peer.write(fatalError(code, message));
    void this.close();
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
    // PGlite runs a statement on this thread, and the next one queued would start as this one's
    // answer is read, from microtasks, never letting node read the sockets: a key's loop of pages
    // then held every other request unread for seconds (SPEC §4, fair sharing). One turn of the
    // event loop first: requests that arrived meanwhile are read, and queue their statements.
    await new Promise((resolve) => setImmediate(resolve));
    // Gone while it waited its turn: leave() releases the session.
    if (this.closing !== null) return;
    try {
      await this.gate.handOver(this);
    } catch (error) {
      this.visitor?.onHandOverFailed?.(error);
      this.cutOff('58000', 'the embedded database could not hand over its session');
      return;
    }
    if (this.visitor !== null && mayChangeSession(message)) this.changedSinceAside = true;
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
        // As PostgreSQL's idle_in_transaction_session_timeout says it, so that psql shows why.
        this.cutOff(
          '25P03',
          `terminating connection due to idle-in-transaction timeout: it held the service's database ${idleMs / 1000} s without a word; its transaction was rolled back`,
        );
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
    // What a visitor set ends with it: once its transaction is rolled back, the session is taken
    // (waiting for its turn if need be) to put back this process's state.
    if (this.gate.lock.holder !== this && this.gate.leavesSomethingBehind(this)) {
      await this.gate.lock.acquire(this);
    }
    if (this.gate.lock.holder === this) {
      try {
        if (this.unfinished) await this.abandonTransaction();
        if (this.visitor !== null) await this.gate.forget(this);
      } catch {
        // PGlite itself failed (closed under us): nothing is left to reset.
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
